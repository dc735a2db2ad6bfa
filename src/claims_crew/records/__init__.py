"""What the decision store keeps, as the layers above it hand it over and read it back.

One ClaimRecord per attempt: what each agent said (raw and parsed), the tool ledger, the
resolution and, for a dispute, the adjudicator's checked answer. store.py writes it in one
transaction, so a run killed halfway leaves either the whole record or none.

What the resolver decided (Resolution, resolution.py) and the adjudicator's checked answer
(AdjudicationCheck) are records too: the rules make them (resolver/), the store keeps them,
the report, the letters and the review page read them.

The review desk's records: who a reviewer is (their name's key) and what they may do
(ReviewerSettings), and an escalation's clock (Deadlines). The desk's rules (desk/) read them;
the store keeps them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from claims_crew.models import Claim, IntakeFacts, LedgerEntry, ParseFailure
from claims_crew.records.resolution import Resolution
from claims_crew.settings.redact import redact
from claims_crew.vocabulary import AdjudicatorChoice, Stage


class RunError(BaseModel):
    """Why an attempt failed. The message is redacted as it is made (settings/redact.py): a
    provider's error may quote the key it was sent, and this text is printed and stored."""

    code: str
    message: str

    @field_validator("message")
    @classmethod
    def _no_secrets(cls, message: str) -> str:
        return redact(message)


class TaskUsage(BaseModel):
    """One task's model calls in one claim and the tokens the model reported for them."""

    prompt: int = Field(0, description="Prompt (input) tokens, as the provider counted them.")
    completion: int = Field(0, description="Completion (output) tokens.")
    calls: int = Field(0, description="Model calls the task made.")

    @property
    def total(self) -> int:
        return self.prompt + self.completion


class StageTime(BaseModel):
    """When one stage of a claim's review started and ended."""

    started_at: datetime
    finished_at: datetime

    @property
    def seconds(self) -> float:
        return (self.finished_at - self.started_at).total_seconds()


class AdjudicationCheck(BaseModel):
    """The adjudicator's answer to a dispute as given, and what the code made of it
    (resolver/adjudication.py)."""

    raw: str
    valid: bool
    choice: AdjudicatorChoice | None = None
    reason: str | None = None
    evidence: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


class ClaimRecord(BaseModel):
    """One claim through the crew: what each agent said, parsed, and what the tool returned."""

    claim_id: str
    claim_file: str
    claim_sha256: str
    policy_id: str
    status: Literal["reviewed", "failed"]
    error: RunError | None = None
    intake: IntakeFacts | ParseFailure | None = None
    policy: Claim | ParseFailure | None = None
    fraud: Claim | ParseFailure | None = None
    raw: dict[str, str] = Field(default_factory=dict, description="Task name → model's text.")
    ledger: list[LedgerEntry] = Field(default_factory=list)
    models: dict[str, str] = Field(
        default_factory=dict, description="Agent name (intake, policy, fraud, adjudicator) → model."
    )
    resolution: Resolution | None = Field(None, description="What the resolver decided.")
    adjudication: AdjudicationCheck | None = Field(
        None, description="The adjudicator's answer and its checks, when it was asked."
    )
    model_calls: dict[str, int] = Field(
        default_factory=dict, description="Task name → model calls made for this claim."
    )
    tokens: dict[str, int] = Field(
        default_factory=dict, description="Task name → prompt plus completion tokens."
    )
    tokens_by_task: dict[str, TaskUsage] = Field(
        default_factory=dict,
        description="Task name → prompt and completion tokens and calls, from CrewAI's events.",
    )
    stages: dict[Stage, StageTime] = Field(
        default_factory=dict, description="The stages this review went through, stamped."
    )
    policy_sha256: str | None = None
    policy_corrections_sha256: str | None = Field(
        None, description="Hash of the kind corrections in policies/index.yaml the policy had."
    )
    started_at: datetime
    finished_at: datetime

    @property
    def seconds(self) -> float:
        return (self.finished_at - self.started_at).total_seconds()


def name_key(name: str) -> str:
    """The form two reviewer names are compared in: stripped, NFKC-normalised (so a full-width
    "ｂｏ" is "bo"), and case-folded (so "BO" and "bo" and "Bö"/"bö" meet, as `str.lower` alone
    would not for every script).

    Four eyes means two people, and the desk knows people by name: were "bo" and "Bo" two
    reviewers, one person could propose a denial as one and confirm it as the other. So a name
    is unique by its key (the store keeps a unique index on it), and every comparison of who
    someone is goes through `same_person`. The name as it was typed is kept for display."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


def same_person(one: str, other: str) -> bool:
    """Whether two reviewer names name the same reviewer."""
    return name_key(one) == name_key(other)


def among(name: str, names: Iterable[str]) -> bool:
    """Whether `name` is one of `names`, compared as `same_person` does."""
    key = name_key(name)
    return any(name_key(n) == key for n in names)


Role = Literal["reviewer", "lead"]
ROLES: tuple[Role, ...] = ("reviewer", "lead")


class ReviewerSettings(BaseModel):
    """What a reviewer may do (desk/authority.py judges decisions by it). The defaults are what
    every reviewer could do before roles existed: any line, any amount, denials included."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role = "reviewer"
    lines: list[str] | None = Field(
        None, description="Lines of business taken (home, auto, travel); null: every line."
    )
    max_amount: Decimal | None = Field(
        None, ge=0, description="The largest payment this reviewer may approve; null: any."
    )
    may_deny: bool = True

    def takes(self, line: str | None) -> bool:
        """Whether this reviewer takes claims of `line` (an unknown line: only if every line)."""
        return self.lines is None or (line is not None and line in self.lines)


class PersonClause(BaseModel):
    """A clause a person's decision rests on, as the code re-read it in the wording in force
    for the claim (resolver/person_clauses.py) when the person named it: what the audit entry
    and the letter quote, never words the person typed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    clause_id: str = Field(description="The policy's own id for the clause.")
    title: str = ""
    text: str = Field(description="The clause's words in force, as re-read.")
    amended_by: str = Field(
        "", description='"as amended by endorsement …" where one changed it; "" when none.'
    )
    verified: bool = Field(
        False, description="A side's citation of it was verified by the re-read."
    )
    kind: str = Field("", description="Its kind (cover, exclusion, …), as a letter words it.")
    pages: tuple[int, ...] = Field((), description="The PDF pages it is printed on, from 1.")


@dataclass(frozen=True)
class Deadlines:
    """An escalation's clock as the store keeps it (desk/clocks.py sets it): ISO dates, the
    last day that is on time."""

    jurisdiction: str | None
    acknowledge_by: str
    decide_by: str
