"""Corrections to an endorsement's changes, where the reader (changes.py) reads one wrongly.

An endorsement's entry in policies/index.yaml may list corrections, each naming a change by its
number in the reader's list (from 1, as `policy tree` shows them) or adding one it missed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

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
    """The reader's changes as the team corrected them: dropped, re-kinded or re-targeted by
    number (the reader's numbers, from 1, whatever else is corrected), and the missed ones
    added in page order after the changes printed on or before their page.

    Raises ValueError for a correction that names a change the reader did not give, or adds
    one without its kind, target and page (the config check reports it as a line).
    """
    kept: list[Change | None] = list(changes)
    added: list[Change] = []
    for correction in corrections:
        if correction.change is None:
            added.append(_added(correction))
            continue
        number = correction.change
        if number > len(changes):
            raise ValueError(
                f"change {number}: the reader gave {len(changes)} change(s) for this "
                f"endorsement, so there is no change {number} to correct"
            )
        current = kept[number - 1]
        if correction.drop or current is None:
            kept[number - 1] = None
            continue
        kept[number - 1] = replace(
            current,
            kind=correction.kind or current.kind,
            target=current.target if correction.target is None else correction.target,
            text=current.text if correction.text is None else correction.text,
            page=correction.page or current.page,
        )
    result = [c for c in kept if c is not None]
    for change in added:
        at = next((i for i, c in enumerate(result) if c.page > change.page), len(result))
        result.insert(at, change)
    return result


def _added(correction: ChangeCorrection) -> Change:
    missing = [
        name
        for name, value in (
            ("kind", correction.kind),
            ("target", correction.target),
            ("page", correction.page),
        )
        if value is None
    ]
    if correction.drop:
        raise ValueError("a correction that drops a change must name it (`change: N`)")
    if correction.kind is None or correction.target is None or correction.page is None:
        raise ValueError(
            "a correction without `change:` adds a change the reader missed and needs its "
            f"kind, target and page: {', '.join(missing)} missing"
        )
    return Change(correction.kind, correction.target, correction.text or "", correction.page)
