"""The checks of config/reason_codes.yaml (optional): every answer and reason code mapped.

A code with no external code would reach the team's claim system blank, so each gap is an error
placed on the line of the section it belongs in; a key that names no answer or reason code is a
warning on its own line (a typo leaves the real code unmapped, which is reported too).
"""

from __future__ import annotations

from pathlib import Path

from claims_crew.config_check.problems import Problem, did_you_mean
from claims_crew.config_check.source import Loaded, locate
from claims_crew.errors import ConfigError
from claims_crew.resolver.config import load_config
from claims_crew.resolver.external_codes import (
    DENIAL_KINDS,
    FILE_NAME,
    ExternalCodes,
    gaps,
    required_keys,
)
from claims_crew.vocabulary import DEFAULT_ANSWERS


def _answers(folder: Path) -> tuple[str, ...]:
    """The definite answers resolution.yaml allows; the defaults when it has an error (reported
    on its own)."""
    try:
        return load_config(folder).definite_answers
    except ConfigError:
        return DEFAULT_ANSWERS


def check_reason_codes(loaded: Loaded, folder: Path) -> list[Problem]:
    """Every gap and unknown key of `folder`/reason_codes.yaml, against the answers its
    resolution.yaml allows."""
    answers = _answers(folder)
    checked = loaded.check(ExternalCodes)
    if checked.value is None:
        return [
            Problem(FILE_NAME, e.key, e.line, "bad_reason_codes", e.msg) for e in checked.errors
        ]
    codes = checked.value
    problems = []
    missing = dict(zip(("decisions", "reason_codes"), gaps(codes, answers), strict=True))
    for section, names in missing.items():
        key, line = locate(loaded.root, [section])
        for name in names:
            problems.append(
                Problem(
                    FILE_NAME,
                    key or section,
                    line,
                    "reason_code_unmapped",
                    f"{section}: no external code for {name}",
                    f"add `{name}: YOUR-CODE` under {section}",
                )
            )
    decisions, reasons = required_keys(answers)
    known = {
        "decisions": [*decisions, *(f"{a}.{k}" for a in decisions for k in DENIAL_KINDS)],
        "reason_codes": reasons,
    }
    for section, mapping in (("decisions", codes.decisions), ("reason_codes", codes.reason_codes)):
        for name in mapping:
            if name not in known[section]:
                key, line = locate(loaded.root, [section, name])
                problems.append(
                    Problem(
                        FILE_NAME,
                        key,
                        line,
                        "reason_code_unknown",
                        f"{name} is not one of claims-crew's {section.replace('_', ' ')}",
                        did_you_mean(name, known[section], mapping),
                        "warning",
                    )
                )
    return problems
