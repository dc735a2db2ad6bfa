"""The stages of one claim's review, stamped as they start and end.

A review is the crew's model calls, then the rules, then (for a dispute) the adjudicator. The
pipeline starts each stage as it reaches it; starting one ends the one before, so a stage is
stamped with one line where it begins. The stamps go into the claim's record and the store, and
the report reads the time each level takes from them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from claims_crew.records import StageTime
from claims_crew.vocabulary import Stage, utc_now


class StageClock:
    """The stages of one review: at most one open at a time."""

    def __init__(self, clock: Callable[[], datetime] = utc_now) -> None:
        self._clock = clock
        self._done: dict[Stage, StageTime] = {}
        self._open: tuple[Stage, datetime] | None = None

    def start(self, stage: Stage) -> None:
        """Begin `stage`, ending the one under way."""
        now = self._clock()
        self._close(now)
        self._open = (stage, now)

    def stop(self) -> None:
        """End the stage under way, if any."""
        self._close(self._clock())

    def _close(self, now: datetime) -> None:
        if self._open is not None:
            stage, started = self._open
            self._done[stage] = StageTime(started_at=started, finished_at=now)
            self._open = None

    @property
    def times(self) -> dict[Stage, StageTime]:
        """The stages ended so far, in the order they ran."""
        return dict(self._done)
