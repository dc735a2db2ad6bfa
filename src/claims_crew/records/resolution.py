"""What the rules return: the decision, each side's checked answer, and the trail of rules tried.

These are what the store keeps, the report counts and the review pages show, so they are
pydantic models that round-trip through JSON. Trail is the builder the rules append to as they
go, so the trail names every rule tried, in order, whether it fired or not.

A resolution is made and changed only through Resolution's typed constructors and methods
(escalated, reached, escalate, hold_back, adjudicated, with_…): mypy checks their parameters,
where a `model_copy(update={...})` dict would be checked by nothing. They copy through
ResolutionChanges, a TypedDict of Resolution's fields, so even the copy's keys are checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from claims_crew.documents.record import LOW_CONFIDENCE
from claims_crew.models import Claim, ParseFailure, Payable
from claims_crew.vocabulary import (
    DECIDED_OUTCOMES,
    AbstainReason,
    FactName,
    FactStatus,
    Outcome,
    QuoteStatus,
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
    status: QuoteStatus
    supports_answer: bool = Field(description="The clause's kind can support the side's answer.")
    tool_sourced: bool = Field(description="policy_lookup returned it to this side's task.")
    quote: str = ""
    text: str | None = Field(None, description="The clause text as re-read from the PDF.")
    pages: list[int] = Field(default_factory=list, description="The PDF pages it is on, from 1.")
    # Set when an endorsement in force changed it: how a letter cites it, and the form's words.
    amended_by: str | None = None
    original: str | None = None


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
    page: int | None = Field(
        None, description="The page of a PDF or image attachment the quote was found on."
    )
    ocr_confidence: float | None = Field(
        None,
        description="Where that page was read by OCR: how sure the engine was of the quoted "
        "lines, 0..1; null for a text layer.",
    )

    @property
    def low_confidence(self) -> bool:
        """Quoted from OCR text the engine was unsure of: a person should look at the page."""
        return self.ocr_confidence is not None and self.ocr_confidence < LOW_CONFIDENCE

    def cited(self) -> str:
        """Where the quote comes from, as a person reads it: 'report.pdf, page 2 (OCR 0.62,
        low confidence)'."""
        said = self.where or ""
        if self.page is not None:
            said += f", page {self.page}"
        if self.ocr_confidence is not None:
            low = ", low confidence" if self.low_confidence else ""
            said += f" (OCR {self.ocr_confidence:.2f}{low})"
        return said


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
        None,
        description="The outcome before a gate, the prefer floor or an unread exclusion "
        "escalated it.",
    )
    would_have_won: Side | None = Field(
        None,
        description="The side that would have won before a gate, the prefer floor or an "
        "unread exclusion.",
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
    payable: Payable | None = Field(
        None,
        description="The amount payable on a covered decision, or on the covered outcome a gate "
        "held back, computed from the schedule; null for any other.",
    )

    @property
    def decided(self) -> bool:
        return self.outcome in DECIDED_OUTCOMES

    @classmethod
    def escalated(
        cls,
        rule: RuleName,
        *,
        reason: str,
        question: str,
        trail: Sequence[TrailStep],
        config_sha256: str,
        reason_codes: Sequence[ReasonCode] = (),
        missing_facts: Sequence[FactName] = (),
        would_have_been: Outcome | None = None,
        would_have_won: Side | None = None,
        sides: Mapping[Side, SideReview] | None = None,
        facts: Sequence[FactCheck] = (),
    ) -> Resolution:
        """A case the rule hands to a person, with the question they are asked."""
        return cls(
            outcome="ESCALATED",
            rule=rule,
            reason=reason,
            reason_codes=list(reason_codes),
            question=question,
            missing_facts=list(missing_facts),
            trail=list(trail),
            sides=dict(sides or {}),
            would_have_been=would_have_been,
            would_have_won=would_have_won,
            facts=list(facts),
            config_sha256=config_sha256,
        )

    @classmethod
    def reached(
        cls,
        outcome: Reached,
        rule: RuleName,
        *,
        reason: str,
        trail: Sequence[TrailStep],
        sides: Mapping[Side, SideReview],
        config_sha256: str,
        winner: Side | None = None,
        answer: str | None = None,
        reason_codes: Sequence[ReasonCode] = (),
        question: str | None = None,
        facts: Sequence[FactCheck] = (),
    ) -> Resolution:
        """An outcome the rules reach that the gates have yet to let stand."""
        return cls(
            outcome=outcome,
            rule=rule,
            winner=winner,
            answer=answer,
            reason=reason,
            reason_codes=list(reason_codes),
            question=question,
            trail=list(trail),
            sides=dict(sides),
            facts=list(facts),
            config_sha256=config_sha256,
        )

    def escalate(
        self,
        rule: RuleName,
        *,
        reason: str,
        reason_codes: Sequence[ReasonCode],
        trail: Sequence[TrailStep],
    ) -> Resolution:
        """Handed to a person by a later step (the adjudicator), asking the question it had."""
        return self._changed(
            ResolutionChanges(
                outcome="ESCALATED",
                rule=rule,
                reason=reason,
                reason_codes=list(reason_codes),
                trail=list(trail),
            )
        )

    def hold_back(
        self,
        *,
        reason: str,
        reason_codes: Sequence[ReasonCode],
        question: str,
        gates_tripped: Sequence[str],
        trail: Sequence[TrailStep],
    ) -> Resolution:
        """Escalated by the gates: no winner or answer, but it keeps what it would have been."""
        return self._changed(
            ResolutionChanges(
                outcome="ESCALATED",
                winner=None,
                answer=None,
                would_have_been=self.outcome,
                would_have_won=self.winner,
                gates_tripped=list(gates_tripped),
                reason_codes=list(reason_codes),
                reason=reason,
                question=question,
                trail=list(trail),
            )
        )

    def adjudicated(
        self, winner: Side, answer: str | None, *, reason: str, trail: Sequence[TrailStep]
    ) -> Resolution:
        """The dispute settled by the adjudicator's checked reading (the gates still to pass)."""
        return self._changed(
            ResolutionChanges(
                outcome="ADJUDICATED",
                rule="adjudicator",
                winner=winner,
                answer=answer,
                reason=reason,
                question=None,
                trail=list(trail),
            )
        )

    def with_trail(self, trail: Sequence[TrailStep]) -> Resolution:
        return self._changed(ResolutionChanges(trail=list(trail)))

    def with_reason_codes(self, reason_codes: Sequence[ReasonCode]) -> Resolution:
        return self._changed(ResolutionChanges(reason_codes=list(reason_codes)))

    def also_because(self, code: ReasonCode, why: str) -> Resolution:
        """An escalation that also carries `code`, its reason saying `why`, once."""
        if code in self.reason_codes:
            return self
        return self._changed(
            ResolutionChanges(
                reason=f"{self.reason}; {why}", reason_codes=[*self.reason_codes, code]
            )
        )

    def with_targeted(self, targeted: TargetedEvidence) -> Resolution:
        return self._changed(ResolutionChanges(targeted=targeted))

    def with_debate(self, debate: DebateRound) -> Resolution:
        return self._changed(ResolutionChanges(debate=debate))

    def with_payable(self, payable: Payable | None) -> Resolution:
        return self._changed(ResolutionChanges(payable=payable))

    def _changed(self, changes: ResolutionChanges) -> Resolution:
        # The one copy with changes: `changes` is a TypedDict, so mypy checks each key and value.
        return self.model_copy(update=changes)


# The outcomes a rule reaches on its own that the gates then check.
Reached = Literal["ACCEPTED", "PREFERRED", "ADJUDICATION_REQUIRED"]


class ResolutionChanges(TypedDict, total=False):
    """Resolution's fields, each optional: what a copy may change (tests keep the two alike)."""

    outcome: Outcome
    rule: RuleName
    winner: Side | None
    answer: str | None
    reason: str
    reason_codes: list[ReasonCode]
    question: str | None
    missing_facts: list[FactName]
    trail: list[TrailStep]
    sides: dict[Side, SideReview]
    would_have_been: Outcome | None
    would_have_won: Side | None
    gates_tripped: list[str]
    facts: list[FactCheck]
    config_sha256: str
    targeted: TargetedEvidence | None
    debate: DebateRound | None
    payable: Payable | None


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
