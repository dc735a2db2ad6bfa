"""One deadline over reading an endorsement, from its bytes to the clauses its changes reach.

The PDF reader child is killed at the PDF timeout (CLAIMS_CREW_PDF_TIMEOUT), but that bounds the
text extraction only: a large endorsement's changes are then read and matched against the form
in this process, in pure Python, and that took longer than the extraction itself (a 17 MB
endorsement ran 153 s at a load of 7 against a 120 s timeout, and was never refused). So the
whole reading shares one deadline of that many seconds: the extraction gets what is left of it,
and the steps after it check it between changes. Past it the reading is refused with the policy
error `timeout`, as a PDF whose text takes too long is.

A check runs between steps, never inside one: a single pass of the phrase finder over the text
is not interrupted, so the deadline can be overrun by one step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from claims_crew.documents.child_process import timeout_from_env
from claims_crew.errors import PolicyError


@dataclass(frozen=True, slots=True)
class ReadingDeadline:
    """When the reading of `what` must be done by, on `clock` (monotonic seconds)."""

    what: str  # "endorsement HM-E-09", as the error names it
    seconds: float
    ends: float
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def start(
        cls, what: str, seconds: float | None, clock: Callable[[], float] = time.monotonic
    ) -> ReadingDeadline:
        """A deadline from now: `seconds`, else the PDF timeout setting."""
        limit = seconds if seconds is not None else timeout_from_env()
        return cls(what, limit, clock() + limit, clock)

    def check(self) -> None:
        """PolicyError `timeout` once the deadline has passed."""
        if self.clock() >= self.ends:
            raise PolicyError(
                "timeout",
                f"{self.what}: reading did not finish within {self.seconds:g} s "
                "(CLAIMS_CREW_PDF_TIMEOUT)",
            )

    def left(self) -> float:
        """The seconds left, for a step that takes a time limit; PolicyError when none is."""
        self.check()
        return self.ends - self.clock()
