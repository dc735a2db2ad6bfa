"""The checks of config/desk.yaml, the optional review-desk file: each mistake at its key and
line, by the model the desk loads it with (claims_crew.desk.rules): an unknown key, a step the
assignment rule does not know, a decision four eyes cannot name, an amount that is no number."""

from __future__ import annotations

from claims_crew.config_check.problems import Problem
from claims_crew.config_check.source import Loaded

HINTS = {"literal_error": "see docs/review-desk.md for the steps and decisions allowed"}


def check_desk(loaded: Loaded) -> list[Problem]:
    from claims_crew.desk.rules import DeskRules

    # Every key the desk reads, from its own model: a key added there is named here too.
    keys = ", ".join(DeskRules.model_fields)
    hints = HINTS | {"extra_forbidden": f"the keys are {keys} (see docs/review-desk.md)"}
    return [
        Problem(loaded.name, e.key, e.line, f"desk_{e.type}", e.msg, hints.get(e.type, ""))
        for e in loaded.check(DeskRules).errors
    ]
