"""Who a new escalation goes to, by the rule in config/desk.yaml.

The rule is a list of steps applied in order to every reviewer not left out: `line` keeps those
who take the claim's line of business; `least_loaded` keeps those with the fewest open
escalations assigned. Ties go to the first name in order, so the same state always gives the
same reviewer. No reviewer left: the escalation stays unassigned.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal

from claims_crew.desk.authority import ReviewerSettings
from claims_crew.desk.names import among

Step = Literal["line", "least_loaded"]
STEPS: tuple[Step, ...] = ("line", "least_loaded")


@dataclass(frozen=True)
class Candidate:
    name: str
    settings: ReviewerSettings
    load: int  # open escalations assigned to them now


def choose(
    candidates: Iterable[Candidate],
    line: str | None,
    steps: Iterable[Step],
    leave_out: Collection[str] = (),
) -> Candidate | None:
    """The reviewer the rule picks for an escalation of `line`, never one in `leave_out`."""
    pool = sorted((c for c in candidates if not among(c.name, leave_out)), key=lambda c: c.name)
    for step in steps:
        if step == "line":
            pool = [c for c in pool if c.settings.takes(line)]
        elif pool:
            fewest = min(c.load for c in pool)
            pool = [c for c in pool if c.load == fewest]
    return pool[0] if pool else None


def why(chosen: Candidate | None, line: str | None, steps: Iterable[Step]) -> str:
    """The sentence an assignment's audit entry gives."""
    rule = ", then ".join(steps) or "first by name"
    what = f"line {line or 'unknown'}; rule: {rule}"
    if chosen is None:
        return f"no reviewer fits ({what}); left unassigned"
    return f"assigned to {chosen.name} ({what}; {chosen.load} open before this)"
