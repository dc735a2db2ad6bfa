"""The checks of config/desk.yaml, the optional review-desk file: each mistake at its key and
line, by the model the desk loads it with (claims_crew.desk.rules): an unknown key, a step the
assignment rule does not know, a decision four eyes cannot name, an amount that is no number."""

from __future__ import annotations

from claims_crew.config_check.problems import Problem
from claims_crew.config_check.source import Loaded

HINTS = {
    "literal_error": "see docs/review-desk.md for the steps and decisions allowed",
    "extra_forbidden": "the keys are assignment (steps) and four_eyes (always, covered_over)",
}


def check_desk(loaded: Loaded) -> list[Problem]:
    from claims_crew.desk.rules import DeskRules

    return [
        Problem(loaded.name, e.key, e.line, f"desk_{e.type}", e.msg, HINTS.get(e.type, ""))
        for e in loaded.check(DeskRules).errors
    ]
