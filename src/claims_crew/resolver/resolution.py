"""What the rules return: the decision, each side's checked answer, and the trail of rules tried.

These are what the store keeps, the report counts and the review pages show, so they are
pydantic models that round-trip through JSON. Trail is the builder the rules append to as they
go, so the trail names every rule tried, in order, whether it fired or not.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from claims_crew.models import Claim, ParseFailure
from claims_crew.vocabulary import (
    DECIDED_OUTCOMES,
    AbstainReason,
    FactName,
    FactStatus,
    Outcome,
    ReasonCode,
    RuleName,
    Side,
)


class ClauseCheck(BaseModel):
    """One cited clause after the re-read."""

    model_config = ConfigDict(frozen=True)

    cited: str = Field(description="The clause id as the agent wrote it.")
    clause_id: str | None = Field(description="The policy's own id for it; null if not found.")
    title: str | None = None
    kind: str | None = None
    status: Literal["verified", "clause_not_found", "quote_mismatch"]
    supports_answer: bool = Field(description="The clause's kind can support the side's answer.")
    tool_sourced: bool = Field(description="policy_lookup returned it to this side's task.")
    quote: str = ""
    text: str | None = Field(None, description="The clause text as re-read from the PDF.")


class SideReview(BaseModel):
    """One agent's answer as the code checked it."""

    model_config = ConfigDict(frozen=True)

    side: Side
    parsed: bool
    answer: str | None = None
    confidence: float | None = None
    holds: bool = Field(False, description="Its evidence survived the re-read.")
    source_checked: bool = Field(False, description="Every cited clause came from the tool.")
    reason_codes: list[ReasonCode] = Field(default_factory=list)
    clauses: list[ClauseCheck] = Field(default_factory=list)
    facts_relied_on: list[FactName] = Field(default_factory=list)
    abstain_reason: AbstainReason | None = Field(
        None, description="Why the agent answered uncertain; null when it answered."
    )


class FactCheck(BaseModel):
    """One intake fact after its source was checked against the claim."""

    model_config = ConfigDict(frozen=True)

    name: FactName
    status: FactStatus = Field(
        description="verified: the source checks out; unverified: intake stated the fact but its "
        "source does not (the rules treat it as unknown); unknown: intake left it null."
    )
    value: str | None = Field(None, description="What intake said, as text; null if nothing.")
    where: str | None = Field(
        None, description="description, an attachment's name, or a claim-file field."
    )
    quote: str = Field("", description="The words intake quoted for it.")
    problem: str | None = Field(None, description="Why the source does not check out.")


class TrailStep(BaseModel):
    """One rule tried: whether it fired, and why or why not."""

    model_config = ConfigDict(frozen=True)

    rule: RuleName
    fired: bool
    reason_code: ReasonCode | None = None
    detail: str


class Resolution(BaseModel):
    """What the rules decided, how, and what a person must answer if they could not."""

    outcome: Outcome
    rule: RuleName
    winner: Side | None = None
    answer: str | None = Field(None, description="The decided answer; null unless decided.")
    reason: str
    reason_codes: list[ReasonCode] = Field(default_factory=list)
    question: str | None = None
    missing_facts: list[FactName] = Field(default_factory=list)
    trail: list[TrailStep] = Field(default_factory=list)
    sides: dict[Side, SideReview] = Field(default_factory=dict)
    would_have_been: Outcome | None = Field(
        None, description="The outcome before a gate or the prefer floor escalated it."
    )
    would_have_won: Side | None = Field(
        None, description="The side that would have won before a gate or the prefer floor."
    )
    gates_tripped: list[str] = Field(default_factory=list)
    facts: list[FactCheck] = Field(
        default_factory=list,
        description="Each intake fact and whether the claim bears it out; empty when intake's "
        "answer could not be read or no model was asked.",
    )
    config_sha256: str = ""
    targeted: TargetedEvidence | None = Field(
        None,
        description="The one question put to intake about the facts a conflict turned on, its "
        "answer as checked, and the resolution before it; null when none was asked.",
    )
    debate: DebateRound | None = Field(
        None,
        description="The one debate round before the adjudicator: each side's revised answer "
        "and the resolution before it; null when none was held.",
    )

    @property
    def decided(self) -> bool:
        return self.outcome in DECIDED_OUTCOMES


class TargetedEvidence(BaseModel):
    """Level 1: the conflict's open facts asked of intake once, and what came of it."""

    question: str = Field(description="The question as intake was asked it.")
    facts: list[FactName] = Field(description="The facts it asked about.")
    raw: str = Field(description="Intake's answer exactly as the model gave it.")
    parse_error: str | None = Field(None, description="Why the answer could not be read.")
    answers: list[FactCheck] = Field(
        default_factory=list,
        description="Each fact intake answered, its source checked against the claim.",
    )
    verified: bool = Field(description="At least one asked fact's source checks out.")
    settled: bool = Field(description="With the verified facts, the conflict rule no longer fires.")
    before: Resolution = Field(description="The resolution that asked, before the answer.")


class Trail:
    """The steps of one resolution, appended as each rule is tried."""

    def __init__(self) -> None:
        self.steps: list[TrailStep] = []

    def add(self, rule: RuleName, fired: bool, detail: str, code: ReasonCode | None = None) -> None:
        self.steps.append(TrailStep(rule=rule, fired=fired, reason_code=code, detail=detail))


class DebateRound(BaseModel):
    """One bounded debate round: each side shown the other's claim once, and what it answered.

    The round's answers are kept here; the record's policy and fraud fields keep the first
    round's. A side whose second answer could not be read stands on its first.
    """

    shown: dict[Side, str] = Field(description="What each side was shown of the other's claim.")
    raw: dict[Side, str] = Field(description="Each side's second answer as the model gave it.")
    revised: dict[Side, Claim | ParseFailure] = Field(
        description="Each side's second answer, parsed, source_checked computed from the ledger."
    )
    changed: list[Side] = Field(description="The sides whose answer differs from their first.")
    before: Resolution = Field(description="The resolution that called the round.")


Resolution.model_rebuild()
