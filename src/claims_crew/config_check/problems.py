"""Problem: one thing wrong in one config file, with where it is and what to do about it.

Every check reports through this one type, so the CLI's table, its lines, its JSON and the error
that stops a run all show the same file, key path, line and hint.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from claims_crew.settings.masking import without_passwords

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
    # The folder `file` is named from (config/, or the policies folder's parent), once
    # check_config has placed it: a line outside a terminal names the file by its path. The
    # JSON names the config folder once instead.
    folder: Path | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # A message may quote a value from the file, a URL with its password among them
        # (webhooks.yaml's url): every way a problem is shown shows it masked.
        object.__setattr__(self, "message", without_passwords(self.message))
        object.__setattr__(self, "hint", without_passwords(self.hint))

    def as_json(self) -> dict[str, Any]:
        found = asdict(self)
        del found["folder"]
        return found

    def placed(self, folder: Path) -> Problem:
        """This problem, its file named from `folder`."""
        return replace(self, folder=folder)

    def path(self) -> Path:
        """The file's path: under its folder where placed, else its name as it is."""
        return Path(self.file) if self.folder is None else self.folder / self.file

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


def nearest(word: str, choices: Collection[str]) -> str | None:
    found = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(
    word: str,
    choices: Collection[str],
    taken: Collection[str] = (),
    already: str = "one already given here",
) -> str:
    """The nearest of `choices` as a hint, never one of `taken`: those already written beside
    the word (the other keys of its mapping, the other items of its list). Renaming the word to
    one of them would only make a duplicate, so when the word is nearest to one of them the
    hint says it looks like a leftover instead, and names none."""
    guess = nearest(word, [c for c in choices if c not in taken and c != word])
    if guess:
        return f"did you mean {guess!r}?"
    if nearest(word, [c for c in choices if c in taken]):
        return f"it looks like a misspelling of {already}: remove it"
    return ""
