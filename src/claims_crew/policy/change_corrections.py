"""Corrections to an endorsement's changes, where the reader (changes.py) reads one wrongly.

An endorsement's entry in policies/index.yaml may list corrections, each naming a change by its
number in the reader's list (from 1, as `policy tree` shows them) or adding one it missed.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from claims_crew.policy.changes import Change, ChangeKind


class ChangeCorrection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    change: int | None = Field(None, ge=1, description="The reader's change, by number from 1.")
    drop: bool = Field(False, description="It is not a change: leave it out.")
    kind: ChangeKind | None = Field(None, description="The kind it really is, or of an added one.")
    target: str | None = Field(None, description="The clause of the form it really targets.")
    text: str | None = Field(None, description="An added change's words.")
    page: int | None = Field(None, ge=1, description="An added change's page.")
    why: str | None = Field(None, description="Why, in the team's words.")


def apply_change_corrections(
    changes: Sequence[Change], corrections: Sequence[ChangeCorrection]
) -> list[Change]:
    raise NotImplementedError  # the endorsement reader
