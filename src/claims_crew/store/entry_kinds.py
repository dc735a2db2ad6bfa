"""An audit entry's fields as hashed (audit.py), its kinds, what an appeal's entry says of the
decision it replaces, and the one JSON text an entry is hashed as."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from claims_crew.models import Payable
from claims_crew.records import PersonClause
from claims_crew.vocabulary import RevalidationVerdict, StaleReason

# `revalidated`: a decision checked again under the current state that came out the same (a
# replay); it records the versions it now stands on and changes no decision. `letter`: a decision
# letter issued (letter_rows.py), with its hash; it decides nothing.
# The review desk's entries (store/desk_rows.py) decide nothing either: `reviewer`, a
# reviewer's settings set (claim id ""); `assigned`, an escalation given to another reviewer,
# or to nobody (the first assignment is part of the escalated entry: its `reviewer`);
# `proposed` and `returned`, a four-eyes proposal made and sent back. A proposal confirmed is a
# `human` entry that names the proposal it confirms. `api_call`: a service client's call to the
# API (clients.py), naming the client and the claim it was about, if any; it decides nothing,
# and its row in `api_calls` lets the queries for a claim's decision read past it.
# `reading_confirmed`: a lead confirmed an endorsement's reading (policy/confirmations.py),
# naming the endorsement and the reading's digest (claim id ""); it decides nothing.
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
    "api_call",
    "reading_confirmed",
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


class AuditEntry(BaseModel):
    """One decision event, as hashed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seq: int = Field(ge=1, description="Position in the chain, from 1.")
    prev: str = Field(description="The previous entry's hash; GENESIS for the first.")
    kind: EntryKind
    claim_id: str
    claim_sha256: str = Field(description="SHA-256 of the claim file that was decided.")
    policy_sha256: str | None = Field(
        description="SHA-256 of the policy PDF that was re-read; for a claim on an issued policy "
        "with endorsements in force, the digest of that wording (policy/in_force.py)."
    )
    # Entries written before kind corrections existed have no such key; they read as None and
    # their hashes, taken over the stored text, still verify.
    policy_corrections_sha256: str | None = Field(
        None, description="Hash of the kind corrections the policy's clauses were read with."
    )
    config_sha256: str | None = Field(description="Hash of resolution.yaml as loaded.")
    models: dict[str, str] = Field(description="Agent → model name.")
    outcome: str | None = Field(description="The resolver's outcome, e.g. ESCALATED.")
    answer: str | None = Field(description="What was decided: covered, not_covered, …")
    rule: str | None = Field(description="The resolver rule that fired.")
    reason_codes: list[str]
    evidence: list[str] = Field(description="Ids of the clauses the decision rests on.")
    actor: str = Field(description="auto, adjudicator, or human:<reviewer name>.")
    reason: str | None = Field(description="A person's reason, or the resolver's.")
    overrides: int | None = Field(description="Seq of the entry this one overrides.")
    overrides_hash: str | None = Field(description="Hash of the entry this one overrides.")
    at: str = Field(description="UTC time, ISO 8601 with Z.")
    # Entries written before expiry and revalidation have none of the keys below; they read as
    # None and still verify, as above.
    config_files_sha256: str | None = Field(
        None, description="Hash of agents.yaml, tasks.yaml, resolution.yaml and prices.yaml."
    )
    expires_at: str | None = Field(None, description="When the decision expires; null: never.")
    revalidates: int | None = Field(
        None, description="Seq of the claim's entry in force that this revalidation checked."
    )
    revalidates_hash: str | None = Field(None, description="Hash of that entry.")
    revalidation: RevalidationVerdict | None = Field(
        None, description="replay: the same outcome and answer; new: a new decision."
    )
    changed: list[StaleReason] | None = Field(
        None, description="What had changed since the entry revalidated, or expired."
    )
    # Entries written before appeals have no such key either.
    appeal: AppealLink | None = Field(
        None, description="An appeal's decision: the decision it replaces, and why."
    )
    # Entries written before entries were signed have no such key either (entry_signatures.py).
    key_id: str | None = Field(
        None, description="The audit key whose signature of this entry's hash is kept with it."
    )
    # Entries from before the review desk have none of these keys either.
    reviewer: str | None = Field(
        None, description="The reviewer set (reviewer) or assigned (assigned); null: nobody."
    )
    settings: dict[str, Any] | None = Field(
        None, description="A reviewer's role, lines, authority and may_deny, as set."
    )
    confirms: int | None = Field(
        None, description="Seq of the proposal this entry confirms (human) or returns."
    )
    confirms_hash: str | None = Field(None, description="Hash of that proposal's entry.")
    # Entries from before a person named clauses have none of these keys either; a person's
    # decision (human) or proposal (proposed) has them where it named a clause or has an amount.
    clauses: list[PersonClause] | None = Field(
        None,
        description="The clauses a person's decision rests on, as re-read: each id, title, "
        "words in force (the quote) and the endorsement that amended it.",
    )
    payable: Payable | None = Field(
        None, description="A person's covered decision's amount payable, or why there is none."
    )
    # Only letter entries have the keys below; every other entry reads them as None.
    letter_sha256: str | None = Field(None, description="SHA-256 of the letter's bytes.")
    letter_format: str | None = Field(None, description="md, html or pdf.")
    letter_of: int | None = Field(None, description="Seq of the decision entry it states.")
    # Only api_call entries have the keys below.
    client: str | None = Field(None, description="The service client that called the API.")
    call: str | None = Field(None, description="The call: method and path, e.g. POST /claims.")
    call_status: int | None = Field(None, description="The HTTP status it was answered with.")
    # Only reading_confirmed entries have the keys below.
    endorsement: str | None = Field(None, description="The endorsement whose reading it confirms.")
    reading_digest: str | None = Field(None, description="The digest of that reading confirmed.")


def canonical(value: Any) -> str:
    """The one JSON text hashed for a value: sorted keys, no whitespace, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
