"""The contracts: what a claim file holds, what intake extracts, and what a reviewer returns.

A model's answer is parsed strictly. A variant that means one thing only (``"Covered"``, a JSON
object inside a code fence) is normalised; anything else (prose, NaN, a confidence written as a
string, an answer outside the allowed outcomes) becomes a ParseFailure that keeps the raw text.
It never silently becomes a rejection or a zero.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.json_schema import SkipJsonSchema

from claims_crew.errors import validation_problems
from claims_crew.schema_cache import SchemaCached
from claims_crew.vocabulary import (
    DESCRIPTION_SOURCE,
    FACT_CLAIM_FIELDS,
    FACT_FIELDS,
    AbstainReason,
    AdjudicatorChoice,
    FactName,
    RiskClass,
    drop_meaningless,
    utc_now,
)

# The dates a claim file may carry: from 1900 (older than any policy still answered for) to a
# few days past today (a claims system a time zone ahead, or its clock a little fast). Beyond
# that a date is a slip or a probe, and the desk's clocks overflow on it (30 days after
# 9999-12-31 is no date): refused at intake, naming the field, before any model is paid for.
EARLIEST_CLAIM_DATE = date(1900, 1, 1)
CLAIM_DATE_SLACK_DAYS = 7


def latest_claim_date() -> date:
    return utc_now().date() + timedelta(days=CLAIM_DATE_SLACK_DAYS)


class ClaimFile(BaseModel):
    """One claim as it arrives: a JSON or YAML file in claims/inbox/."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    claim_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", description="Claim id.")
    policy_id: str = Field(min_length=1, description="Id of the policy in policies/index.yaml.")
    policy_number: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$",
        description="The policy as issued (policies/issued/NUMBER.yaml): its endorsements in "
        "force on the date of loss amend the wording, its declarations give the limits.",
    )
    claimant: str = Field(min_length=1, description="Who makes the claim.")
    date_reported: date = Field(description="When the claim was reported.")
    date_of_loss: date = Field(description="When the loss happened, as the claimant says.")
    description: str = Field(min_length=1, description="The claimant's account, as written.")
    amount: Decimal = Field(gt=0, allow_inf_nan=False, description="Amount claimed.")
    currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code, e.g. GBP.")
    attachments: list[str] = Field(
        default_factory=list, description="Text files next to the claim file, by name."
    )
    risk_class: RiskClass | None = Field(
        None, description="Underwriting risk class, if the claims system assigns one."
    )
    jurisdiction: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$",
        description="Whose claim-handling rules apply (e.g. US-CA): picks the row of "
        "config/clocks.yaml.",
    )
    schedule: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.ya?ml$",
        description="The policyholder's schedule file in policies/schedules/, if the policy's "
        "limits and deductibles are not in policies/index.yaml.",
    )
    sample: bool = Field(
        False,
        description="A demonstration claim (the project's claims/inbox): its desk clock starts "
        "on the day this store first received it, not on date_reported (desk/clocks.py). The "
        "agents are not shown it.",
    )

    @field_validator("date_reported", "date_of_loss")
    @classmethod
    def _sane_date(cls, value: date) -> date:
        latest = latest_claim_date()
        if not EARLIEST_CLAIM_DATE <= value <= latest:
            raise ValueError(
                f"{value.isoformat()} is outside the dates a claim may carry "
                f"({EARLIEST_CLAIM_DATE.isoformat()} to {latest.isoformat()})"
            )
        return value


class FactSource(BaseModel):
    """Where in the claim a fact is stated: a field of the claim file, or the claim's own words.

    The code checks it before the rules trust the fact (resolver/facts.py): a field by equality
    with the claim file, a quote by finding it in the description or the named attachment.
    """

    model_config = ConfigDict(extra="forbid")

    where: str = Field(
        min_length=1,
        description=f"{DESCRIPTION_SOURCE!r}, an attachment's file name, or the claim-file field "
        f"the fact copies ({', '.join(f'{f} for {n}' for n, f in FACT_CLAIM_FIELDS.items())}).",
    )
    quote: str = Field(
        "",
        description="The claim's words that state the fact, copied exactly; empty when `where` "
        "is a claim-file field.",
    )


class IntakeFacts(SchemaCached):
    """The facts the reviewers and the resolver rely on. Unknown is null, never a guess."""

    model_config = ConfigDict(extra="forbid")

    loss_type: str | None = Field(None, description="e.g. water_damage, theft, collision.")
    cause: str | None = Field(None, description="What caused the loss, in the claim's words.")
    date_of_loss: date | None = Field(None, description="When the loss happened.")
    damage_start_date: date | None = Field(
        None, description="When the damage began, if the claim says; often not the loss date."
    )
    amount_claimed: float | None = Field(None, ge=0, allow_inf_nan=False)
    unknowns: list[FactName] = Field(
        default_factory=list, description="Names of the facts above that the claim leaves open."
    )
    sources: dict[FactName, FactSource] = Field(
        default_factory=dict,
        description="For every fact above that is not null: where the claim states it.",
    )
    # Computed by parse_intake, never the model's: so not in the schema the model is shown.
    unusable: SkipJsonSchema[list[str]] = Field(default_factory=list)

    @field_validator("sources", mode="before")
    @classmethod
    def _named_place(cls, value: Any) -> Any:
        # Records kept before sources had a shape hold a bare place name: read it as a source
        # with no quote, which only a claim-file field can verify.
        if isinstance(value, dict):
            return {k: {"where": v} if isinstance(v, str) else v for k, v in value.items()}
        return value


class Evidence(BaseModel):
    """A clause a reviewer relies on, with the words it quotes from it."""

    model_config = ConfigDict(extra="forbid")

    clause_id: str = Field(min_length=1)
    quote: str = ""


class ClaimAnswer(SchemaCached):
    """What the policy and fraud agents must return; the schema their output is held to."""

    model_config = ConfigDict(extra="forbid")

    answer: str = Field(description="One of the allowed outcomes, e.g. covered or not_covered.")
    confidence: float = Field(ge=0, le=1, allow_inf_nan=False, strict=True)
    evidence: list[Evidence] = Field(default_factory=list)
    facts_relied_on: list[FactName] = Field(
        default_factory=list, description="Names of the IntakeFacts this answer depends on."
    )
    rationale: str = ""
    red_flags: list[str] = Field(
        default_factory=list, description="Signs of fraud or misrepresentation, one per item."
    )
    abstain_reason: AbstainReason | None = Field(
        None,
        description="Only with the answer uncertain: needs_more_evidence (a fact the answer "
        "turns on is unknown) or interpretation_unresolved (the wording reads both ways).",
    )

    @field_validator("confidence", mode="before")
    @classmethod
    def _number_not_text(cls, value: Any) -> Any:
        # strict=True already refuses "0.9"; this refuses a bool, which is an int to Python.
        if isinstance(value, bool):
            raise ValueError("confidence must be a number between 0 and 1")
        return float(value) if isinstance(value, int) else value


class Claim(ClaimAnswer):
    """A parsed reviewer answer plus what code computed about it."""

    source_checked: bool = Field(
        False,
        description="Computed from the tool ledger: every cited clause was returned to this "
        "agent by policy_lookup in this task. Never taken from the model.",
    )
    unusable: list[str] = Field(
        default_factory=list,
        description="Computed by the parser: each part of the answer dropped as meaningless.",
    )


class AdjudicatorAnswer(SchemaCached):
    """What the adjudicator must return: a side (or escalate), a reason and the clauses."""

    model_config = ConfigDict(extra="forbid")

    choice: AdjudicatorChoice = Field(
        description="policy or fraud: whose reading the words support; escalate: a person decides."
    )
    reason: str = Field(description="Why, in terms of the clause wording. Required.")
    evidence: list[str] = Field(
        default_factory=list, description="Ids of the cited clauses the choice rests on."
    )


class FactAnswer(BaseModel):
    """Intake's answer about one fact it was asked for again: the value and where it is stated.

    The source is checked exactly as intake's first answer is (resolver/fact_sources.py); only a
    value the claim bears out replaces the open fact.
    """

    model_config = ConfigDict(extra="forbid")

    fact: FactName = Field(description="The fact asked about.")
    value: str | float | None = Field(
        description="The fact's value (a date as YYYY-MM-DD); null if the claim does not say."
    )
    source: FactSource | None = Field(
        None, description="Where the claim states it, with its exact words; null with a null value."
    )


class TargetedAnswer(SchemaCached):
    """What the intake agent returns to a targeted question: one answer per fact asked."""

    model_config = ConfigDict(extra="forbid")

    answers: list[FactAnswer] = Field(default_factory=list)


_Answer = TypeVar("_Answer", bound=BaseModel)


def parse_as(model: type[_Answer], raw: str) -> _Answer | ParseFailure:
    """A model's raw answer as `model`, strictly: one JSON object (a code fence around it is
    fine) that validates, else a ParseFailure saying why, with the raw text kept."""
    data = _json_object(raw)
    if isinstance(data, str):
        return ParseFailure(reason=data, raw=raw)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        return ParseFailure(reason=_first_error(exc), raw=raw)


def parse_targeted(raw: str) -> TargetedAnswer | ParseFailure:
    return parse_as(TargetedAnswer, raw)


def parse_adjudication(raw: str) -> AdjudicatorAnswer | ParseFailure:
    return parse_as(AdjudicatorAnswer, raw)


class LedgerEntry(BaseModel):
    """One finished tool call, as CrewAI's events reported it (see provenance.py)."""

    task_id: str
    task_name: str | None
    agent_role: str | None
    tool: str
    args: dict[str, Any] | str
    returned_clause_ids: list[str] = Field(default_factory=list)


class ParseFailure(BaseModel):
    """A model answer that could not be read; `raw` keeps exactly what the model said."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["parse_error"] = "parse_error"
    reason: str
    raw: str


_FENCE = re.compile(r"^\s*```(?:json)?\s*(?P<body>.*?)\s*```\s*$", re.DOTALL)


def _json_object(raw: str) -> dict[str, Any] | str:
    """The JSON object in a model's answer, or a reason why there is none."""
    text = raw.strip()
    if fenced := _FENCE.match(text):
        text = fenced["body"]

    def refuse_constant(name: str) -> float:
        raise ValueError(f"{name} is not a number")

    try:
        value = json.loads(text, parse_constant=refuse_constant, strict=False)
    except ValueError as exc:
        return f"not a JSON object: {exc}"
    if not isinstance(value, dict):
        return f"expected a JSON object, got {type(value).__name__}"
    return value


def normalise_answer(answer: object, allowed: tuple[str, ...]) -> str | None:
    """Map "Covered", "NOT COVERED" or "not-covered" onto an allowed outcome, if exactly one."""
    if not isinstance(answer, str):
        return None
    folded = re.sub(r"[\s-]+", "_", answer.strip().lower())
    return folded if folded in allowed else None


def parse_claim(raw: str, allowed: tuple[str, ...]) -> Claim | ParseFailure:
    """A reviewer's raw answer as a Claim (source_checked False until provenance says so)."""
    data = _json_object(raw)
    if isinstance(data, str):
        return ParseFailure(reason=data, raw=raw)
    answer = normalise_answer(data.get("answer"), allowed)
    if answer is None:
        return ParseFailure(
            reason=f"answer {data.get('answer')!r} is not one of {', '.join(allowed)}", raw=raw
        )
    data = {**data, "answer": answer}
    data.pop("source_checked", None)  # the model does not get to say this
    kept, unusable = drop_meaningless(data)
    try:
        claim = Claim.model_validate({**kept, "unusable": unusable})
    except ValidationError as exc:
        return ParseFailure(reason=_first_error(exc), raw=raw)
    return claim


def parse_intake(raw: str) -> IntakeFacts | ParseFailure:
    """Intake's raw answer as IntakeFacts; `unknowns` is recomputed from the null facts."""
    data = _json_object(raw)
    if isinstance(data, str):
        return ParseFailure(reason=data, raw=raw)
    kept, unusable = drop_meaningless(data)
    try:
        facts = IntakeFacts.model_validate({**kept, "unusable": unusable})
    except ValidationError as exc:
        return ParseFailure(reason=_first_error(exc), raw=raw)
    amount = facts.amount_claimed
    if amount is not None and not math.isfinite(amount):
        return ParseFailure(reason="amount_claimed is not a finite number", raw=raw)
    # Which facts are missing is a fact about the JSON, not the model's opinion.
    facts.unknowns = [name for name in FACT_FIELDS if getattr(facts, name) is None]
    return facts


def _first_error(exc: ValidationError) -> str:
    return validation_problems(exc, "answer")[0]


# The amount payable on a covered decision (resolver/payable.py computes it; a person's
# decision and a letter keep it).
PayableStepKind = Literal["claimed", "limit", "sub_limit", "deductible"]
PAYABLE_STEP_KINDS: tuple[PayableStepKind, ...] = get_args(PayableStepKind)


class PayableStep(BaseModel):
    """One step of the sum: the running amount before and after it, and the clause behind it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: PayableStepKind
    clause_id: str | None = Field(description="The clause the figure comes from; null: claimed.")
    before: Decimal
    after: Decimal
    note: str


class Payable(BaseModel):
    """The amount payable on a decision, or why there is none."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    currency: str
    amount: Decimal | None = Field(description="Null when no amount could be computed.")
    reason: str | None = Field(None, description="Why there is no amount; null with one.")
    steps: list[PayableStep] = Field(default_factory=list)
    deciding_clause: str | None = Field(
        None, description="The clause whose cover section set the limits."
    )

    @classmethod
    def none(cls, currency: str, reason: str, deciding_clause: str | None = None) -> Payable:
        return cls(currency=currency, amount=None, reason=reason, deciding_clause=deciding_clause)
