"""The kinds of audit entry (audit.py), and what an appeal's entry says of the decision it
replaces."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# `revalidated`: a decision checked again under the current state that came out the same (a
# replay); it records the versions it now stands on and changes no decision. `letter`: a decision
# letter issued (letter_rows.py), with its hash; it decides nothing.
# The review desk's entries (store/desk_rows.py) decide nothing either: `reviewer`, a
# reviewer's settings set (claim id ""); `assigned`, an escalation given to another reviewer,
# or to nobody (the first assignment is part of the escalated entry: its `reviewer`);
# `proposed` and `returned`, a four-eyes proposal made and sent back. A proposal confirmed is a
# `human` entry that names the proposal it confirms.
EntryKind = Literal[
    "auto",
    "adjudicated",
    "escalated",
    "human",
    "revalidated",
    "letter",
    "reviewer",
    "assigned",
    "proposed",
    "returned",
]


class AppealLink(BaseModel):
    """What an appeal's decision says of the decision it replaces (run/appeal.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    replaces: int = Field(ge=1, description="Seq of the claim's entry in force when appealed.")
    replaces_hash: str = Field(description="Hash of that entry.")
    reason: str = Field(min_length=1, description="Why the claim was appealed.")
    attachments: list[str] = Field(description="The new attachments, by name.")
    previous_reviewer: str | None = Field(
        None, description="Who decided the claim before, left out of deciding the appeal."
    )
