"""The cascade: what follows the rules' first word, as an ordered list of levels.

Seed 003's levels, cheapest first: targeted evidence (one question to intake about the facts a
conflict turns on), a debate round (each side shown the other's claim; off by default), the
adjudicator (only for an interpretation dispute), and last a person, who is whatever the levels
leave open (ESCALATED, in the review queue).

Each level pairs its model side (a task of the claim's crew) with its rule side (resolver/: the
check of that task's answer, in code), says when it applies to the resolution so far, and
returns the next resolution. `walk` runs them in order; a level sees what the ones before it
decided, so the adjudicator is asked about a dispute the targeted answer has just made.
"""

from __future__ import annotations

from typing import Protocol

from claims_crew.run.levels.adjudicator import Adjudicator
from claims_crew.run.levels.debate import Debate
from claims_crew.run.levels.state import ReviewState
from claims_crew.run.levels.targeted import TargetedEvidence
from claims_crew.run.stages import StageClock
from claims_crew.vocabulary import Stage


class Level(Protocol):
    """One level: its stage in the claim's clock, when it applies, and what it makes of it."""

    @property
    def stage(self) -> Stage: ...

    def applies(self, state: ReviewState) -> bool: ...

    def run(self, state: ReviewState) -> None:
        """Ask the model side once, check the answer in code, and update `state`."""


LEVELS: tuple[Level, ...] = (TargetedEvidence(), Debate(), Adjudicator())


def walk(state: ReviewState, stages: StageClock, levels: tuple[Level, ...] = LEVELS) -> None:
    """Run every level that applies, in order, each stamped in the stage clock."""
    for level in levels:
        if level.applies(state):
            stages.start(level.stage)
            level.run(state)
            stages.stop()


__all__ = ["LEVELS", "Level", "ReviewState", "walk"]
