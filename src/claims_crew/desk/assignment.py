"""Who a new escalation goes to, by the rule in config/desk.yaml.

The rule is a list of steps applied in order to every reviewer not left out: `line` keeps those
who take the claim's line of business; `least_loaded` keeps those with the fewest open
escalations assigned. Ties go to the first name in order, so the same state always gives the
same reviewer. No reviewer left: the escalation stays unassigned.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from claims_crew.records import ReviewerSettings, among

# Why an escalation has nobody, as the queue shows it: decided where it is assigned.
NONE_FITS = "unassigned: no reviewer fits its line of business"

Step = Literal["line", "least_loaded"]
STEPS: tuple[Step, ...] = ("line", "least_loaded")


class Candidate(Protocol):
    """A reviewer as the store reads them in the transaction that assigns (store's ReviewerRow)."""

    @property
    def name(self) -> str: ...

    @property
    def settings(self) -> ReviewerSettings: ...

    @property
    def load(self) -> int: ...  # open escalations assigned to them now


C = TypeVar("C", bound=Candidate)


def choose(
    candidates: Iterable[C],
    line: str | None,
    steps: Iterable[Step],
    leave_out: Collection[str] = (),
) -> C | None:
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


def unassigned_why(
    candidates: Iterable[Candidate],
    line: str | None,
    steps: Iterable[Step],
    leave_out: Collection[str] = (),
) -> str:
    """Why the rule chose nobody: the reviewers it leaves out (an appeal's first decider) were
    the only ones who fit, or nobody fits the line at all."""
    if leave_out and choose(candidates, line, steps) is not None:
        names = ", ".join(sorted(leave_out))
        return (
            f"unassigned: an appeal never goes to {names}, who decided it first, "
            "and no other reviewer fits its line of business"
        )
    return NONE_FITS


@dataclass(frozen=True)
class Assigner:
    """The rule (config/desk.yaml's steps) as the store applies it to the reviewers and their
    loads as they stand in the transaction that assigns, so two escalations recorded at once
    never both count the same load."""

    steps: tuple[Step, ...] = STEPS

    def __call__(
        self, candidates: Sequence[Candidate], line: str | None, leave_out: Collection[str] = ()
    ) -> tuple[str | None, str]:
        """The reviewer chosen (None: nobody fits) and the sentence the entry gives."""
        chosen = choose(candidates, line, self.steps, leave_out)
        reason = why(chosen, line, self.steps)
        if leave_out:
            reason += f"; not {', '.join(sorted(leave_out))}"
        return (chosen.name if chosen is not None else None), reason

    def unassigned(
        self, candidates: Sequence[Candidate], line: str | None, leave_out: Collection[str] = ()
    ) -> str:
        """Why nobody was chosen for an escalation of `line` (unassigned_why)."""
        return unassigned_why(candidates, line, self.steps, leave_out)
