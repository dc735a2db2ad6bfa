"""Problem: one thing wrong in one config file, with where it is and what to do about it.

Every check reports through this one type, so the CLI's table, its JSON and the error that stops
a run all show the same file, key path, line and hint.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong in one config file, with where it is and what to do about it."""

    file: str
    key: str
    line: int | None  # 1-based; None when the problem is the whole file
    code: str
    message: str
    hint: str = ""
    severity: Severity = "error"

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    def location(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where} {self.key}" if self.key else where


def format_problems(problems: Sequence[Problem]) -> str:
    lines = []
    for p in problems:
        lines.append(f"{p.location()}: {p.severity}: {p.message}")
        if p.hint:
            lines.append(f"    hint: {p.hint}")
    return "\n".join(lines)


def nearest(word: str, choices: Sequence[str] | frozenset[str]) -> str | None:
    found = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(word: str, choices: Sequence[str] | frozenset[str]) -> str:
    guess = nearest(word, choices)
    return f"did you mean {guess!r}?" if guess else ""
