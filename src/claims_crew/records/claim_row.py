"""One decided claim, reduced to a `ClaimRow`: what the report's metrics and the evaluation read.

`build_row` makes it from JSON-shaped parts (report/rows.py gives them from the store's rows or
from objects; the store's report facts, store/report_facts.py, from the rows it just wrote). The
definitions of each field are report/rows.py's docstring.

A row may also stand for several claims alike in everything the report groups by: `weight` is
how many, and its numbers (model calls, tokens, seconds, tokens by task, stage and person
seconds) are their sums, its confidences their means. The report's counts weigh each row so;
a row read claim by claim has weight 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from claims_crew.vocabulary import (
    DECIDED_OUTCOMES,
    FACT_FIELDS,
    OPEN_OUTCOMES,
    SIDES,
    parse_stamp,
)

# Stated-confidence buckets for the calibration table: [low, high), the last one closed.
BUCKETS: tuple[tuple[float, float], ...] = (
    (0.0, 0.5),
    (0.5, 0.6),
    (0.6, 0.7),
    (0.7, 0.8),
    (0.8, 0.9),
    (0.9, 1.0),
)


def bucket_of(confidence: float) -> int:
    for i, (low, high) in enumerate(BUCKETS):
        if low <= confidence < high:
            return i
    return len(BUCKETS) - 1  # 1.0 belongs to the last, closed bucket


class TaskTokens(NamedTuple):
    """One task's tokens and model calls in one claim."""

    prompt: int = 0
    completion: int = 0
    calls: int = 0


@dataclass(frozen=True, slots=True)
class SideRow:
    """One reviewing agent's answer as far as the metrics care."""

    ran: bool = False  # its task produced an answer
    parsed: bool = False
    answer: str | None = None
    confidence: float | None = None
    clauses: tuple[str, ...] = ()  # canonical id where the re-read found it, else as cited
    verified: tuple[bool, ...] = ()  # per clause: re-read as verified
    holds: bool | None = None  # None where the resolver never re-read (checks failed)
    facts_relied_on: tuple[str, ...] = ()
    abstain_reason: str | None = None  # why it answered uncertain, when it did


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """A decided claim, reduced to what the report and the evaluation read."""

    claim_id: str
    decided_at: str
    outcome: str
    rule: str
    answer: str | None
    reason_codes: tuple[str, ...]
    missing_facts: tuple[str, ...]
    loss_type: str | None
    intake: str  # "absent", "parse_error" or "parsed"
    null_fields: tuple[str, ...]
    disputed_fields: tuple[str, ...]
    policy: SideRow
    fraud: SideRow
    adjudicator: str | None  # one of ADJUDICATOR_OUTCOMES, None when not asked
    review: str | None  # the human decision, when an escalation was reviewed
    escalation_id: int | None
    escalation_state: str | None
    question: str | None
    model_calls: int = 0  # over every task of the decided attempt
    tokens: int = 0
    seconds: float = 0.0
    unverified_fields: tuple[str, ...] = ()  # stated by intake, not borne out by the claim
    tokens_by_task: dict[str, TaskTokens] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)  # agent → model
    stage_seconds: dict[str, float] = field(default_factory=dict)  # stage → seconds
    person_seconds: float | None = None  # escalation opened → a person decided it
    targeted: str | None = None  # settled, verified or unverified; None when none was asked
    debate: str | None = None  # changed or unchanged; None when no round was held
    weight: int = 1  # the claims this row stands for (see the module docstring)

    def side(self, name: str) -> SideRow:
        return self.policy if name == "policy" else self.fraud

    @property
    def compared(self) -> bool:
        """Both reviewing agents gave an answer that parsed."""
        return self.policy.parsed and self.fraud.parsed

    @property
    def conflict(self) -> bool:
        return self.compared and self.policy.answer != self.fraud.answer

    @property
    def agreed(self) -> bool:
        return self.compared and self.policy.answer == self.fraud.answer

    @property
    def material_conflict(self) -> bool:
        return self.conflict and self.outcome not in DECIDED_OUTCOMES

    @property
    def waiting(self) -> bool:
        """Left for a person: escalated, or a dispute nobody adjudicated."""
        return self.outcome in OPEN_OUTCOMES

    def parse_error(self, agent: str) -> bool | None:
        """None where the agent never answered."""
        if agent == "intake":
            return None if self.intake == "absent" else self.intake == "parse_error"
        side = self.side(agent)
        return None if not side.ran else not side.parsed


def _side(claim: dict[str, Any] | None, review: dict[str, Any] | None) -> SideRow:
    if claim is None:
        return SideRow()
    if claim.get("kind") == "parse_error":
        return SideRow(ran=True)
    if review is not None and review.get("clauses") is not None:
        checks = review["clauses"]
        clauses = tuple(c.get("clause_id") or c["cited"] for c in checks)
        verified = tuple(c.get("status") == "verified" for c in checks)
        holds: bool | None = bool(review.get("holds"))
    else:
        clauses = tuple(e["clause_id"] for e in claim.get("evidence") or ())
        verified = tuple(False for _ in clauses)
        holds = None
    confidence = claim.get("confidence")
    return SideRow(
        ran=True,
        parsed=True,
        answer=claim.get("answer"),
        confidence=float(confidence) if confidence is not None else None,
        clauses=clauses,
        verified=verified,
        holds=holds,
        facts_relied_on=tuple(claim.get("facts_relied_on") or ()),
        abstain_reason=claim.get("abstain_reason"),
    )


def _disputed(intake: dict[str, Any], claim_file: dict[str, Any] | None) -> list[str]:
    """Facts intake read differently from the claim file, compared as the resolver does."""
    if claim_file is None:
        return []
    disputed = []
    loss = intake.get("date_of_loss")
    if loss is not None and str(loss) != str(claim_file.get("date_of_loss")):
        disputed.append("date_of_loss")
    amount = intake.get("amount_claimed")
    if amount is not None:
        try:
            if Decimal(str(amount)) != Decimal(str(claim_file.get("amount"))):
                disputed.append("amount_claimed")
        except InvalidOperation:
            disputed.append("amount_claimed")
    return disputed


def build_row(
    *,
    claim_id: str,
    decided_at: str,
    outcome: str,
    answer: str | None,
    resolution: dict[str, Any],
    intake: dict[str, Any] | None,
    policy: dict[str, Any] | None,
    fraud: dict[str, Any] | None,
    adjudication: tuple[bool, str | None] | None,
    review: str | None,
    escalation: tuple[int, str] | None,
    claim_file: dict[str, Any] | None,
    model_calls: int,
    tokens: int,
    seconds: float,
    tokens_by_task: Mapping[str, Mapping[str, int]] | None = None,
    models: Mapping[str, str] | None = None,
    stages: Mapping[str, tuple[str, str]] | None = None,
    opened_at: str | None = None,
    reviewed_at: str | None = None,
) -> ClaimRow:
    """A row from JSON-shaped parts, the way both loaders see a claim."""
    sides = resolution.get("sides") or {}
    missing = tuple(resolution.get("missing_facts") or ())
    state, loss_type, null, disputed, unverified = _intake_state(
        intake, resolution, missing, claim_file
    )
    adjudicator = _adjudicator(adjudication)
    return ClaimRow(
        claim_id=claim_id,
        decided_at=decided_at,
        outcome=outcome,
        rule=resolution.get("rule", ""),
        answer=answer,
        reason_codes=tuple(resolution.get("reason_codes") or ()),
        missing_facts=missing,
        loss_type=loss_type,
        intake=state,
        null_fields=null,
        disputed_fields=disputed,
        unverified_fields=unverified,
        policy=_side(policy, sides.get("policy")),
        fraud=_side(fraud, sides.get("fraud")),
        adjudicator=adjudicator,
        review=review,
        escalation_id=escalation[0] if escalation else None,
        escalation_state=escalation[1] if escalation else None,
        question=resolution.get("question"),
        model_calls=model_calls,
        tokens=tokens,
        seconds=seconds,
        tokens_by_task={
            task: TaskTokens(u.get("prompt", 0), u.get("completion", 0), u.get("calls", 0))
            for task, u in (tokens_by_task or {}).items()
        },
        models=dict(models or {}),
        stage_seconds={
            stage: seconds_between(started, finished)
            for stage, (started, finished) in (stages or {}).items()
        },
        person_seconds=seconds_between(opened_at, reviewed_at)
        if opened_at and reviewed_at
        else None,
        targeted=_targeted(resolution.get("targeted")),
        debate=_debate(resolution.get("debate")),
    )


def _intake_state(
    intake: dict[str, Any] | None,
    resolution: dict[str, Any],
    missing: tuple[str, ...],
    claim_file: dict[str, Any] | None,
) -> tuple[str, str | None, tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Intake as the report counts it: its state, loss type, and the fields left null, disputed
    (contradicting the claim file, or named missing by the rules) and unverified."""
    if intake is None:
        return "absent", None, (), (), ()
    if intake.get("kind") == "parse_error":
        return "parse_error", None, (), (), ()
    null = tuple(f for f in FACT_FIELDS if intake.get(f) is None)
    checked = {c.get("name"): c.get("status") for c in resolution.get("facts") or ()}
    unverified = tuple(f for f in FACT_FIELDS if checked.get(f) == "unverified")
    named = [f for f in missing if f not in null and f not in unverified]
    contradicted = {*_disputed(intake, claim_file), *named}
    disputed = tuple(f for f in FACT_FIELDS if f in contradicted)
    return "parsed", intake.get("loss_type"), null, disputed, unverified


def _adjudicator(adjudication: tuple[bool, str | None] | None) -> str | None:
    """What the adjudicator did: None when not asked."""
    if adjudication is None:
        return None
    valid, choice = adjudication
    if not valid:
        return "invalid"
    return f"chose_{choice}" if choice in SIDES else "escalate"


def _debate(held: dict[str, Any] | None) -> str | None:
    if not held:
        return None
    return "changed" if held.get("changed") else "unchanged"


def _targeted(asked: dict[str, Any] | None) -> str | None:
    if not asked:
        return None
    if asked.get("settled"):
        return "settled"
    return "verified" if asked.get("verified") else "unverified"


def seconds_between(started: str, finished: str) -> float:
    return (parse_stamp(finished) - parse_stamp(started)).total_seconds()
