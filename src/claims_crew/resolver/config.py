"""config/resolution.yaml: the resolver's thresholds, gates and allowed outcomes, validated.

Every value is checked when the file is loaded, so a typo stops a run before any model call
instead of quietly changing what gets decided automatically.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from claims_crew import settings
from claims_crew.errors import ConfigError, validation_problems
from claims_crew.models import Claim, ClaimFile, IntakeFacts
from claims_crew.policy.segment import ClauseKind
from claims_crew.resolver.expiry import Expiry
from claims_crew.resolver.quotes import fold
from claims_crew.settings.yaml_files import read_required
from claims_crew.vocabulary import (
    ABSTENTION,
    DECIDED_OUTCOMES,
    DEFAULT_ANSWERS,
    FACT_FIELDS,
    FactName,
    Outcome,
)

# What a gate's `field` may start with, and the model whose fields may follow.
GATE_SUBJECTS: dict[str, type[BaseModel]] = {
    "claim_file": ClaimFile,
    "facts": IntakeFacts,
    "policy": Claim,
    "fraud": Claim,
}


def gate_fields() -> list[str]:
    """Every `field` a gate may name, e.g. claim_file.amount or fraud.red_flags."""
    return [
        f"{subject}.{name}"
        for subject, model in GATE_SUBJECTS.items()
        for name in model.model_fields
    ]


DEFAULT_EVIDENCE_KINDS: dict[str, tuple[ClauseKind, ...]] = {
    "covered": ("grant",),
    "not_covered": ("exclusion", "condition", "limit"),
}


class Accept(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_confidence: float = Field(0.85, ge=0, le=1, allow_inf_nan=False)
    max_confidence_gap: float = Field(0.25, ge=0, le=1, allow_inf_nan=False)


class Prefer(BaseModel):
    """Only one side's evidence holds: how sure that side must be to win alone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # None: the agreement floor, accept.min_confidence. One side alone is never trusted with
    # less confidence than two agents that agree would need.
    min_confidence: float | None = Field(None, ge=0, le=1, allow_inf_nan=False)


class ToolSourced(BaseModel):
    """An automatic outcome must rest on a supporting clause policy_lookup returned."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    required: bool = True
    # For an agreement both sides win: `either` asks it of at least one agent, `both` of each.
    agreement: Literal["either", "both"] = "either"


class Exclusions(BaseModel):
    """The exclusions the claim's words fit, found by the policy search, must be answered before
    the rules decide against them (resolver/exclusions.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: bool = True
    # The kinds of clause the search looks for; an answer whose evidence_kinds include none of
    # them (covered) is the answer they argue against.
    kinds: tuple[ClauseKind, ...] = Field(("exclusion",), min_length=1)
    # A clause fits when at least min_words of the claim's words are in it and its search
    # score reaches min_score, counted in rare words (policy/fit.py).
    min_words: int = Field(2, ge=1, strict=True)
    min_score: float = Field(2.0, gt=0, allow_inf_nan=False)
    # Words printed in more than this share of the policy's clauses tell none apart.
    common_share: float = Field(0.15, gt=0, le=1, allow_inf_nan=False)
    # Before prefer lets one side win because the other's evidence failed: an exclusion that
    # fits the loser's answer makes the claim a dispute for the adjudicator instead.
    guard_prefer: bool = True


class Abstention(BaseModel):
    """What an agent's `uncertain` does, when allowed_answers lists it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # `either`: one abstaining agent sends the claim to a person. `both`: only two do; with one,
    # the other side may still win alone under the prefer rule.
    escalate_when: Literal["either", "both"] = "either"


class Adjudication(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True


class TargetedEvidenceSettings(BaseModel):
    """Level 1: before a conflict over open facts goes to a person, ask intake once about them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True


# Words a quote must hold, besides the value, to speak of the fact: a date is not the damage's
# start unless the sentence says so. Matched as whole words, case and spacing aside.
DEFAULT_FACT_CUES: dict[FactName, tuple[str, ...]] = {
    "damage_start_date": (
        "started", "start", "starts", "starting", "began", "begun", "begin", "begins",
        "beginning", "first noticed", "first appeared", "first seen", "since", "onset", "burst",
    ),
    # The claim file's date_of_loss is its usual source; a quote of the claimant's words for it
    # must name the event.
    "date_of_loss": (
        "happened", "occurred", "took place", "loss", "incident", "accident", "burst", "broke",
        "broken", "stolen", "theft", "burgled", "forced", "fell", "flooded", "flood", "fire",
        "storm", "hit", "collided", "crashed", "damaged", "lost", "did not arrive", "delayed",
    ),
    "amount_claimed": (
        "claim", "claimed", "claiming", "total", "cost", "costs", "amount", "sum", "estimate",
        "estimated", "invoice", "bill", "price", "quote", "quoted", "repair", "replacement",
        "pay", "paid",
    ),
}  # fmt: skip


def _cue_words(cues: tuple[str, ...]) -> tuple[str, ...]:
    """Each cue folded as quotes are; a blank one would match every quote."""
    folded = tuple(fold(cue) for cue in cues)
    if any(not cue for cue in folded):
        raise ValueError("a cue is a word or words, not blank")
    return folded


Cues = Annotated[tuple[str, ...], AfterValidator(_cue_words)]


class FactCues(BaseModel):
    """Per fact, the words of which a quote offered for it must hold one (fact_sources.py).

    loss_type and cause have none by default: their values are intake's words for what the
    claim says, with no date or figure for a cue to sit beside; their quotes must still lie in
    one sentence of the claim. An empty list turns the requirement off for that fact.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    loss_type: Cues = ()
    cause: Cues = ()
    date_of_loss: Cues = DEFAULT_FACT_CUES["date_of_loss"]
    damage_start_date: Cues = DEFAULT_FACT_CUES["damage_start_date"]
    amount_claimed: Cues = DEFAULT_FACT_CUES["amount_claimed"]

    def of(self, name: FactName) -> tuple[str, ...]:
        cues: tuple[str, ...] = getattr(self, name)
        return cues


assert tuple(FactCues.model_fields) == FACT_FIELDS, "cues are kept for every fact, in order"


class Debate(BaseModel):
    """One bounded debate round before the adjudicator: each side shown the other's claim once."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rounds: int = Field(0, ge=0, le=1, strict=True)


class Gate(BaseModel):
    """Escalate an automatic outcome when a field is above a number or one of some values."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str = Field(min_length=1)
    field: str
    above: float | None = Field(None, allow_inf_nan=False)
    in_: tuple[str, ...] | None = Field(None, alias="in")

    @model_validator(mode="after")
    def _one_test_on_a_known_field(self) -> Gate:
        if self.field not in gate_fields():
            raise ValueError(f"gate {self.name!r}: unknown field {self.field!r}")
        if (self.above is None) == (self.in_ is None):
            raise ValueError(f"gate {self.name!r}: give exactly one of `above` or `in`")
        return self


class Authority(BaseModel):
    """The most a decision standing without a person may pay, by currency (over_authority)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    automatic_limit: dict[Annotated[str, Field(pattern=r"^[A-Z]{3}$")], Decimal] = Field(
        default_factory=dict, description="ISO 4217 code → the most paid without a person."
    )

    @model_validator(mode="after")
    def _finite_and_positive(self) -> Authority:
        for currency, limit in self.automatic_limit.items():
            if not limit.is_finite() or limit < 0:
                raise ValueError(f"automatic_limit: {currency} must be a number of 0 or more")
        return self


class ResolutionConfig(BaseModel):
    """The whole of config/resolution.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allowed_answers: tuple[str, ...] = DEFAULT_ANSWERS
    evidence_kinds: dict[str, tuple[ClauseKind, ...]] = Field(
        default_factory=lambda: dict(DEFAULT_EVIDENCE_KINDS)
    )
    accept: Accept = Accept()
    prefer: Prefer = Prefer()
    tool_sourced: ToolSourced = ToolSourced()
    exclusions: Exclusions = Exclusions()
    abstention: Abstention = Abstention()
    adjudication: Adjudication = Adjudication()
    # On unless the file turns it off: one question to intake is cheaper than a person.
    targeted_evidence: TargetedEvidenceSettings = TargetedEvidenceSettings()
    # 0: a dispute goes straight to the adjudicator; 1: each side may revise once first.
    debate: Debate = Debate()
    # The words that tie a fact's quote to that fact; facts left out keep their defaults.
    fact_cues: FactCues = FactCues()
    # By default every decided outcome stands; listing fewer sends the rest to a person.
    automatic_outcomes: tuple[Outcome, ...] = DECIDED_OUTCOMES
    gates: tuple[Gate, ...] = ()
    # No limit unless the file sets one: an amount is only computed where a schedule exists.
    authority: Authority = Authority()
    # How long a decision stands before `review stale` lists it; by default, for ever.
    expiry: Expiry = Expiry()

    @model_validator(mode="after")
    def _answers_have_kinds(self) -> ResolutionConfig:
        definite = self.definite_answers
        if len(definite) < 2:
            raise ValueError(
                f"allowed_answers: give at least two answers besides {ABSTENTION}"
                if self.abstention_allowed
                else "allowed_answers: give at least two answers"
            )
        if missing := [a for a in definite if a not in self.evidence_kinds]:
            raise ValueError(f"evidence_kinds: no kinds for answer(s) {', '.join(missing)}")
        if ABSTENTION in self.evidence_kinds:
            raise ValueError(
                f"evidence_kinds: {ABSTENTION} is an abstention; no clause supports it"
            )
        if extra := [a for a in self.evidence_kinds if a not in self.allowed_answers]:
            raise ValueError(f"evidence_kinds: {', '.join(extra)} is not an allowed answer")
        if "ESCALATED" in self.automatic_outcomes:
            raise ValueError("automatic_outcomes: ESCALATED always goes to a person")
        return self

    @property
    def abstention_allowed(self) -> bool:
        """An agent may answer `uncertain` instead of guessing."""
        return ABSTENTION in self.allowed_answers

    @property
    def definite_answers(self) -> tuple[str, ...]:
        """The allowed answers that decide something: all but the abstention."""
        return tuple(a for a in self.allowed_answers if a != ABSTENTION)

    def argued_against(self, answer: str) -> bool:
        """An exclusion argues against `answer`: none of the kinds the exclusion search looks
        for can support it (covered, with the shipped evidence_kinds)."""
        return answer in self.definite_answers and not self.argued_for(answer)

    def argued_for(self, answer: str) -> bool:
        """An exclusion argues for `answer`: it is of a kind that can support it (not_covered)."""
        kinds = set(self.evidence_kinds.get(answer, ()))
        return answer in self.definite_answers and bool(kinds & set(self.exclusions.kinds))

    @property
    def prefer_floor(self) -> float:
        """The confidence one side needs to win alone (prefer.min_confidence, or accept's)."""
        floor = self.prefer.min_confidence
        return self.accept.min_confidence if floor is None else floor

    @cached_property
    def _digest(self) -> str:
        canonical = json.dumps(self.model_dump(mode="json", by_alias=True), sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def digest(self) -> str:
        """SHA-256 of the canonical JSON of the settings, recorded with every decision."""
        return self._digest


def parse_config(data: Any, source: str = "resolution.yaml") -> ResolutionConfig:
    try:
        return ResolutionConfig.model_validate(data or {})
    except ValidationError as exc:
        problems = "; ".join(validation_problems(exc, "file"))
        raise ConfigError(f"{source}: {problems}") from exc


def load_config(config_dir: Path | None = None) -> ResolutionConfig:
    """config/resolution.yaml, validated; a missing file is an error, not the defaults."""
    path = (config_dir if config_dir is not None else settings.config_dir()) / "resolution.yaml"
    return parse_config(read_required(path, "missing").data, str(path))
