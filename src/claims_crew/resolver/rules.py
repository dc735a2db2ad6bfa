"""The resolver: what the policy and fraud agents' answers mean, decided by rules, not a model.

Pure: no CrewAI, no I/O, no clock. The clauses the agents cite are read from the PDF before the
rules run (see reread.py) and handed in as a PolicyView, so the same case always resolves the
same way and a table of cases can test every rule.

The rules, in order (README, "The resolver"):
  checks   answers parsed and allowed; the policy exists and is in force  → else ESCALATED
  reread   every cited clause re-read: exists, quote in it, kind supports the answer
  agree    same answer, both sides' evidence holds, confident enough  → ACCEPTED
  prefer   only one side's evidence holds                             → PREFERRED
  conflict both hold, answers differ, a fact is unknown or disputed   → ESCALATED
  dispute  both hold, answers differ, every fact known                → ADJUDICATION_REQUIRED
  neither  no side's evidence holds                                    → ESCALATED
  gates    amount, red flags, risk class, non-automatic outcome        → ESCALATED

Agreement needs verified evidence too: two agents that obey the same injected instruction agree
confidently, and only the re-read tells that apart from a real agreement.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from claims_crew.models import (
    AdjudicatorAnswer,
    Claim,
    ClaimFile,
    IntakeFacts,
    LedgerEntry,
    ParseFailure,
)
from claims_crew.policy.ids import clause_key
from claims_crew.resolver.config import Gate, Outcome, ResolutionConfig
from claims_crew.vocabulary import FACT_FIELDS, FactName

Side = Literal["policy", "fraud"]
SIDES: tuple[Side, ...] = get_args(Side)

RuleName = Literal[
    "checks", "reread", "agree", "prefer", "conflict", "dispute", "neither", "gates", "adjudicator"
]

ReasonCode = Literal[
    "parse_error",
    "policy_not_found",
    "policy_not_in_force",
    "policy_unreadable",
    "no_evidence",
    "clause_not_found",
    "quote_mismatch",
    "kind_mismatch",
    "low_confidence",
    "confidence_gap",
    "needs_more_evidence",
    "interpretation_unresolved",
    "policy_gate",
    "adjudicator_invalid",
]
REASON_CODES: tuple[ReasonCode, ...] = get_args(ReasonCode)

FACT_QUESTIONS: dict[FactName, str] = {
    "loss_type": "What kind of loss is it?",
    "cause": "What caused the loss?",
    "date_of_loss": "When did the loss happen?",
    "damage_start_date": "When did the damage start?",
    "amount_claimed": "How much is claimed?",
}


# ---- what the rules read ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReadClause:
    """A clause as the code re-read it from the policy PDF (with its sub-clauses' text)."""

    id: str
    title: str
    kind: str
    text: str
    folded: str = ""  # fold(text), computed once when the clause is read

    @classmethod
    def of(cls, id: str, title: str, kind: str, text: str) -> ReadClause:
        return cls(id, title, kind, text, fold(text))


@dataclass(frozen=True)
class PolicyView:
    """The policy as the code found it, with every clause the agents cited already looked up.

    `clauses` maps a citation exactly as an agent wrote it to the clause, or None if the policy
    has no such clause.
    """

    policy_id: str
    found: bool
    unreadable: str | None = None  # a PolicyError code, when the PDF could not be read
    in_force_from: date | None = None
    in_force_to: date | None = None
    sha256: str | None = None
    clauses: Mapping[str, ReadClause | None] = field(default_factory=dict)

    def in_force_on(self, day: date) -> bool:
        if self.in_force_from is None:
            return True  # a PDF given by path has no dates to check against
        return self.in_force_from <= day and (self.in_force_to is None or day <= self.in_force_to)


@dataclass(frozen=True)
class Case:
    """Everything one decision depends on."""

    claim_file: ClaimFile
    facts: IntakeFacts | ParseFailure
    policy: Claim | ParseFailure
    fraud: Claim | ParseFailure
    ledger: Sequence[LedgerEntry]
    view: PolicyView

    def claim(self, side: Side) -> Claim | ParseFailure:
        return self.policy if side == "policy" else self.fraud


def cited_clauses(*answers: Claim | ParseFailure) -> list[str]:
    """Every clause id the parsed answers cite, as written: what the re-read must look up."""
    return [e.clause_id for a in answers if isinstance(a, Claim) for e in a.evidence]


# ---- what the rules return ----------------------------------------------------------------


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
    would_have_been: Outcome | None = Field(None, description="The outcome before a gate.")
    gates_tripped: list[str] = Field(default_factory=list)
    config_sha256: str = ""

    @property
    def decided(self) -> bool:
        return self.outcome in ("ACCEPTED", "PREFERRED", "ADJUDICATED")


# ---- quote matching -----------------------------------------------------------------------

_QUOTE_MARKS = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})
_LINE_HYPHEN = re.compile(r"(\w)-\s*\n\s*(\w)")
_SPACE = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
_EDGE = " \"'.,;:"


def fold(text: str) -> str:
    """Text reduced for quote matching: case, curly quotes, line-end hyphens and spacing."""
    text = _LINE_HYPHEN.sub(r"\1\2", text.translate(_QUOTE_MARKS))
    return _SPACE.sub(" ", text).strip().lower()


def quote_in(quote: str, folded_text: str) -> bool:
    """The quote occurs in the text; "a … b" means a, then later b."""
    parts = [p.strip(_EDGE) for p in _ELLIPSIS.split(fold(quote))]
    parts = [p for p in parts if p]
    if not parts:
        return False
    at = 0
    for part in parts:
        at = folded_text.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return True


# ---- the rules ----------------------------------------------------------------------------


def tool_sourced(ledger: Sequence[LedgerEntry], side: Side) -> frozenset[str]:
    """Clause keys policy_lookup returned within the side's own task."""
    task = f"{side}_task"
    return frozenset(
        clause_key(cid)
        for e in ledger
        if e.task_name == task or (e.task_name is None and e.agent_role == side)
        for cid in e.returned_clause_ids
    )


def review_side(
    side: Side, claim: Claim, view: PolicyView, sourced: frozenset[str], config: ResolutionConfig
) -> SideReview:
    """Re-read every clause one side cites; it holds when all are real and quoted truly and at
    least one is of a kind that can support its answer (an exclusion cited alongside a grant for
    "covered" is fine: arguing an exclusion does not apply is part of the answer)."""
    supporting = config.evidence_kinds.get(claim.answer, ())
    checks = []
    for evidence in claim.evidence:
        clause = view.clauses.get(evidence.clause_id)
        is_sourced = clause_key(evidence.clause_id) in sourced or (
            clause is not None and clause_key(clause.id) in sourced
        )
        if clause is None:
            checks.append(
                ClauseCheck(
                    cited=evidence.clause_id,
                    clause_id=None,
                    status="clause_not_found",
                    supports_answer=False,
                    tool_sourced=is_sourced,
                    quote=evidence.quote,
                )
            )
            continue
        checks.append(
            ClauseCheck(
                cited=evidence.clause_id,
                clause_id=clause.id,
                title=clause.title,
                kind=clause.kind,
                status="verified" if quote_in(evidence.quote, clause.folded) else "quote_mismatch",
                supports_answer=clause.kind in supporting,
                tool_sourced=is_sourced,
                quote=evidence.quote,
                text=clause.text,
            )
        )
    codes: list[ReasonCode] = []
    if not checks:
        codes.append("no_evidence")
    if any(c.status == "clause_not_found" for c in checks):
        codes.append("clause_not_found")
    if any(c.status == "quote_mismatch" for c in checks):
        codes.append("quote_mismatch")
    found = [c for c in checks if c.status != "clause_not_found"]
    if found and not any(c.supports_answer for c in found):
        # Only a real clause can be of the wrong kind; a missing one is clause_not_found alone.
        codes.append("kind_mismatch")
    return SideReview(
        side=side,
        parsed=True,
        answer=claim.answer,
        confidence=claim.confidence,
        holds=not codes,
        source_checked=bool(checks) and all(c.tool_sourced for c in checks),
        reason_codes=codes,
        clauses=checks,
        facts_relied_on=list(claim.facts_relied_on),
    )


def fact_problems(case: Case, names: Sequence[FactName]) -> tuple[list[FactName], list[str]]:
    """Of the named facts: which intake left unknown, and which contradict the claim file."""
    facts = case.facts
    if isinstance(facts, ParseFailure):
        return list(names), []
    unknown = [n for n in names if getattr(facts, n) is None]
    disputed = []
    claim_file = case.claim_file
    if "date_of_loss" in names and facts.date_of_loss not in (None, claim_file.date_of_loss):
        disputed.append(
            f"date_of_loss: the claim file says {claim_file.date_of_loss}, "
            f"intake read {facts.date_of_loss}"
        )
    amount = facts.amount_claimed
    if (
        "amount_claimed" in names
        and amount is not None
        and Decimal(str(amount)) != claim_file.amount
    ):
        disputed.append(
            f"amount_claimed: the claim file says {claim_file.amount}, intake read {amount}"
        )
    return unknown, disputed


def _gate_value(case: Case, gate: Gate) -> object:
    subject, name = gate.field.split(".", 1)
    source: object = {
        "claim_file": case.claim_file,
        "facts": case.facts,
        "policy": case.policy,
        "fraud": case.fraud,
    }[subject]
    return getattr(source, name, None)


def gate_trips(case: Case, gate: Gate) -> bool:
    value = _gate_value(case, gate)
    if value is None:
        return False
    if gate.in_ is not None:
        return str(value) in gate.in_
    if isinstance(value, (list, tuple, set, frozenset, dict, str)):
        value = len(value)
    assert gate.above is not None
    try:
        return float(value) > gate.above  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


class _Trail:
    def __init__(self) -> None:
        self.steps: list[TrailStep] = []

    def add(self, rule: RuleName, fired: bool, detail: str, code: ReasonCode | None = None) -> None:
        self.steps.append(TrailStep(rule=rule, fired=fired, reason_code=code, detail=detail))


def _checks(case: Case, config: ResolutionConfig, trail: _Trail) -> list[ReasonCode]:
    codes: list[ReasonCode] = []
    for name, value in (("intake", case.facts), ("policy", case.policy), ("fraud", case.fraud)):
        if isinstance(value, ParseFailure):
            trail.add(
                "checks", True, f"{name}: could not read the answer: {value.reason}", "parse_error"
            )
            codes.append("parse_error")
        elif isinstance(value, Claim) and value.answer not in config.allowed_answers:
            trail.add(
                "checks", True, f"{name}: answer {value.answer!r} is not allowed", "parse_error"
            )
            codes.append("parse_error")
    for code, detail in _policy_problems(case.claim_file, case.view):
        trail.add("checks", True, detail, code)
        codes.append(code)
    if not codes:
        trail.add(
            "checks", False, "both answers parsed and allowed; policy in force on the loss date"
        )
    return list(dict.fromkeys(codes))


def _policy_problems(claim_file: ClaimFile, view: PolicyView) -> list[tuple[ReasonCode, str]]:
    if view.unreadable is not None:
        return [("policy_unreadable", f"policy {view.policy_id}: {view.unreadable}")]
    if not view.found:
        return [("policy_not_found", f"policy {view.policy_id} is not in the library")]
    if not view.in_force_on(claim_file.date_of_loss):
        return [
            (
                "policy_not_in_force",
                f"policy {view.policy_id} runs {view.in_force_from}..{view.in_force_to or 'open'}"
                f"; loss on {claim_file.date_of_loss}",
            )
        ]
    return []


def policy_checks(
    claim_file: ClaimFile, view: PolicyView, config: ResolutionConfig
) -> Resolution | None:
    """The checks that need no answer: a claim under an unusable policy is escalated before any
    model is asked about it. None when the policy is known, readable and in force."""
    problems = _policy_problems(claim_file, view)
    if not problems:
        return None
    trail = _Trail()
    for code, detail in problems:
        trail.add("checks", True, detail, code)
    return Resolution(
        outcome="ESCALATED",
        rule="checks",
        reason="the case cannot be decided by rules: " + "; ".join(d for _, d in problems),
        reason_codes=[c for c, _ in problems],
        question="The claim's policy cannot be used: which policy applies, and is it covered?",
        trail=trail.steps,
        config_sha256=config.digest(),
    )


def resolve(case: Case, config: ResolutionConfig) -> Resolution:
    """Decide a case by the rules; see the module docstring for their order."""
    trail = _Trail()
    base = {"config_sha256": config.digest()}

    failed = _checks(case, config, trail)
    if failed:
        # Already a person's to decide: there is nothing for the gates to hold back.
        return Resolution(
            outcome="ESCALATED",
            rule="checks",
            reason="the case cannot be decided by rules: " + ", ".join(failed),
            reason_codes=failed,
            question="An answer or the policy could not be used: is this claim covered?",
            trail=trail.steps,
            **base,
        )
    policy, fraud = case.policy, case.fraud
    assert isinstance(policy, Claim) and isinstance(fraud, Claim)

    sides: dict[Side, SideReview] = {
        side: review_side(side, claim, case.view, tool_sourced(case.ledger, side), config)
        for side, claim in zip(SIDES, (policy, fraud), strict=True)
    }
    for side, review in sides.items():
        if review.holds:
            trail.add("reread", False, f"{side}: every cited clause re-read and verified")
        else:
            for code in review.reason_codes:
                trail.add("reread", True, f"{side}: {_describe(review, code)}", code)
    holding = [s for s in SIDES if sides[s].holds]
    base_sides = {"sides": sides, **base}

    if policy.answer == fraud.answer:
        high = max(policy.confidence, fraud.confidence)
        gap = abs(policy.confidence - fraud.confidence)
        agree_codes: list[ReasonCode] = []
        if high < config.accept.min_confidence:
            agree_codes.append("low_confidence")
        if gap > config.accept.max_confidence_gap:
            agree_codes.append("confidence_gap")
        if not agree_codes and len(holding) == 2:
            trail.add("agree", True, f"both answer {policy.answer}; evidence holds on both sides")
            return _gated_or(
                case,
                config,
                trail,
                Resolution(
                    outcome="ACCEPTED",
                    rule="agree",
                    answer=policy.answer,
                    reason=f"both agents answer {policy.answer} (confidence {high:.2f}, "
                    f"gap {gap:.2f}) and both sides' evidence re-reads",
                    trail=trail.steps,
                    **base_sides,
                ),
            )
        for code in agree_codes:
            trail.add(
                "agree",
                False,
                f"same answer, but {_confidence_detail(code, high, gap, config)}",
                code,
            )
        if len(holding) < 2 and not agree_codes:
            trail.add("agree", False, "same answer, but not both sides' evidence holds")
        if len(holding) == 2:
            # Same answer and sound evidence, but the agents are not sure enough between them.
            return Resolution(
                outcome="ESCALATED",
                rule="agree",
                reason=f"both answer {policy.answer} but "
                + "; ".join(_confidence_detail(c, high, gap, config) for c in agree_codes),
                reason_codes=agree_codes,
                question=f"Both agents lean to {policy.answer} without enough confidence: "
                "is that right?",
                trail=trail.steps,
                **base_sides,
            )
    else:
        trail.add("agree", False, f"answers differ: policy {policy.answer}, fraud {fraud.answer}")

    if len(holding) == 1:
        winner = holding[0]
        loser: Side = "fraud" if winner == "policy" else "policy"
        sourced = "tool-sourced" if sides[winner].source_checked else "re-read only"
        trail.add(
            "prefer",
            True,
            f"only {winner}'s evidence holds ({sourced}); {loser}: "
            + ", ".join(sides[loser].reason_codes),
        )
        return _gated_or(
            case,
            config,
            trail,
            Resolution(
                outcome="PREFERRED",
                rule="prefer",
                winner=winner,
                answer=sides[winner].answer,
                reason=f"only {winner}'s evidence holds up on re-reading ({sourced}); "
                f"{loser}'s fails: " + ", ".join(sides[loser].reason_codes),
                reason_codes=list(sides[loser].reason_codes),
                trail=trail.steps,
                **base_sides,
            ),
        )

    if not holding:
        codes = list(dict.fromkeys(c for s in SIDES for c in sides[s].reason_codes))
        trail.add("prefer", False, "neither side's evidence holds")
        trail.add(
            "neither", True, "no side's evidence survives the re-read", codes[0] if codes else None
        )
        return Resolution(
            outcome="ESCALATED",
            rule="neither",
            reason="neither side's evidence holds up on re-reading: " + ", ".join(codes),
            reason_codes=codes,
            question="Neither agent's cited clauses hold up: is this claim covered, and under "
            "which clause?",
            trail=trail.steps,
            **base_sides,
        )

    trail.add("prefer", False, "both sides' evidence holds")
    # Which facts an answer rests on is the agent's own account of itself, so it only orders
    # the question: every fact intake left open or that contradicts the claim file counts.
    relied = list(dict.fromkeys([*policy.facts_relied_on, *fraud.facts_relied_on, *FACT_FIELDS]))
    unknown, disputed = fact_problems(case, relied)
    if unknown or disputed:
        parts = [f"{name}: {FACT_QUESTIONS[name]}" for name in unknown] + disputed
        trail.add(
            "conflict",
            True,
            "facts of the claim are open: " + "; ".join(parts),
            "needs_more_evidence",
        )
        return Resolution(
            outcome="ESCALATED",
            rule="conflict",
            reason="both sides' evidence holds, but the answers differ while facts are "
            + ("unknown: " + ", ".join(unknown) if unknown else "disputed")
            + (" and disputed" if unknown and disputed else ""),
            reason_codes=["needs_more_evidence"],
            question=" ".join(parts),
            missing_facts=unknown + [d.split(":", 1)[0] for d in disputed],
            trail=trail.steps,
            **base_sides,
        )
    trail.add("conflict", False, "every fact either side relies on is known and undisputed")
    trail.add("dispute", True, "same facts, sound evidence, different reading of the words")
    return _gated_or(
        case,
        config,
        trail,
        Resolution(
            outcome="ADJUDICATION_REQUIRED",
            rule="dispute",
            reason="both sides' evidence holds and the facts are agreed; they read the clauses "
            "differently",
            question="Which reading do the clauses support: "
            f"policy ({policy.answer}) or fraud ({fraud.answer})?",
            trail=trail.steps,
            **base_sides,
        ),
    )


def _confidence_detail(code: ReasonCode, high: float, gap: float, config: ResolutionConfig) -> str:
    if code == "low_confidence":
        return f"the higher confidence {high:.2f} is below {config.accept.min_confidence:.2f}"
    return f"the confidences are {gap:.2f} apart, over {config.accept.max_confidence_gap:.2f}"


def _describe(review: SideReview, code: ReasonCode) -> str:
    bad = {
        "clause_not_found": [c.cited for c in review.clauses if c.status == "clause_not_found"],
        "quote_mismatch": [c.cited for c in review.clauses if c.status == "quote_mismatch"],
    }.get(code)
    if code == "no_evidence":
        return "cites no clause"
    if code == "kind_mismatch":
        return f"no verified clause is of a kind that supports {review.answer}"
    return f"{code.replace('_', ' ')}: {', '.join(bad or [])}"


def _gated_or(
    case: Case, config: ResolutionConfig, trail: _Trail, resolution: Resolution
) -> Resolution:
    """Apply the gates to an outcome that would stand without a person."""
    tripped = [g.name for g in config.gates if gate_trips(case, g)]
    not_automatic = (
        resolution.outcome != "ADJUDICATION_REQUIRED"
        and resolution.outcome not in config.automatic_outcomes
    )
    if not tripped and not not_automatic:
        trail.add("gates", False, "no gate tripped")
        return resolution.model_copy(update={"trail": list(trail.steps)})
    why = [f"gate {name}" for name in tripped]
    if not_automatic:
        why.append(f"{resolution.outcome} is not an automatic outcome in resolution.yaml")
    trail.add("gates", True, "; ".join(why), "policy_gate")
    would = resolution.answer or resolution.outcome
    return resolution.model_copy(
        update={
            "outcome": "ESCALATED",
            "winner": None,
            "answer": None,
            "would_have_been": resolution.outcome,
            "gates_tripped": tripped,
            "reason_codes": [*resolution.reason_codes, "policy_gate"],
            "reason": f"{resolution.reason}; escalated by {', '.join(why)}",
            "question": f"The rules would have decided {would}, but {', '.join(why)}: "
            "do you confirm?",
            "trail": list(trail.steps),
        }
    )


# ---- the adjudicator's answer, checked ----------------------------------------------------


class AdjudicationCheck(BaseModel):
    """The adjudicator's answer as given, and what the code made of it."""

    raw: str
    valid: bool
    choice: str | None = None
    reason: str | None = None
    evidence: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


def apply_adjudication(
    case: Case,
    config: ResolutionConfig,
    resolution: Resolution,
    answer: AdjudicatorAnswer | ParseFailure,
) -> tuple[Resolution, AdjudicationCheck]:
    """Turn an interpretation dispute into ADJUDICATED, or ESCALATED when the answer fails a check.

    The answer must name a side (or escalate), give a reason, and rest on clauses that either side
    cited and that re-read as verified, at least one of a kind that supports the chosen answer.
    """
    if resolution.outcome != "ADJUDICATION_REQUIRED":
        raise ValueError(f"only an interpretation dispute is adjudicated, not {resolution.outcome}")
    trail = _Trail()
    trail.steps = [s for s in resolution.trail if s.rule != "gates"]
    if isinstance(answer, ParseFailure):
        check = AdjudicationCheck(raw=answer.raw, valid=False, problems=[answer.reason])
        return _adjudicator_invalid(resolution, trail, check), check
    raw = answer.model_dump_json()
    problems = []
    if not answer.reason.strip():
        problems.append("no reason given")
    if answer.choice == "escalate":
        check = AdjudicationCheck(
            raw=raw, valid=not problems, choice="escalate", reason=answer.reason, problems=problems
        )
        if problems:
            return _adjudicator_invalid(resolution, trail, check), check
        trail.add("adjudicator", True, f"escalated: {answer.reason}", "interpretation_unresolved")
        return resolution.model_copy(
            update={
                "outcome": "ESCALATED",
                "rule": "adjudicator",
                "reason": f"the adjudicator could not settle the reading: {answer.reason}",
                "reason_codes": ["interpretation_unresolved"],
                "trail": trail.steps,
            }
        ), check
    chosen = resolution.sides[answer.choice]
    verified = {
        clause_key(c.clause_id): c
        for review in resolution.sides.values()
        for c in review.clauses
        if c.status == "verified" and c.clause_id is not None
    }
    cited = [verified.get(clause_key(cid)) for cid in answer.evidence]
    if not answer.evidence:
        problems.append("no evidence given")
    if unknown := [cid for cid, c in zip(answer.evidence, cited, strict=True) if c is None]:
        problems.append("evidence not among the verified cited clauses: " + ", ".join(unknown))
    supporting = config.evidence_kinds.get(chosen.answer or "", ())
    if answer.evidence and not any(c is not None and c.kind in supporting for c in cited):
        problems.append(f"no evidence clause is of a kind that supports {chosen.answer}")
    check = AdjudicationCheck(
        raw=raw,
        valid=not problems,
        choice=answer.choice,
        reason=answer.reason,
        evidence=list(answer.evidence),
        problems=problems,
    )
    if problems:
        return _adjudicator_invalid(resolution, trail, check), check
    trail.add("adjudicator", True, f"chose {answer.choice}: {answer.reason}")
    decided = resolution.model_copy(
        update={
            "outcome": "ADJUDICATED",
            "rule": "adjudicator",
            "winner": answer.choice,
            "answer": chosen.answer,
            "reason": f"the adjudicator chose {answer.choice}'s reading: {answer.reason}",
            "question": None,
            "trail": trail.steps,
        }
    )
    return _gated_or(case, config, trail, decided), check


def _adjudicator_invalid(
    resolution: Resolution,
    trail: _Trail,
    check: AdjudicationCheck,
) -> Resolution:
    trail.add(
        "adjudicator", True, "answer refused: " + "; ".join(check.problems), "adjudicator_invalid"
    )
    return resolution.model_copy(
        update={
            "outcome": "ESCALATED",
            "rule": "adjudicator",
            "reason": "the adjudicator's answer failed the checks: " + "; ".join(check.problems),
            "reason_codes": ["adjudicator_invalid"],
            "trail": trail.steps,
        }
    )
