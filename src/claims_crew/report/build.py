"""The disagreement and coverage report over the decisions in the store.

Two steps. `load_rows` reads every decided claim in one read-only SQL pass and reduces it to a
small `ClaimRow` (what the metrics need, nothing more); `row_from` builds the same row from a
`Decision` and its `ClaimRecord` for callers that hold objects. `build_report` is a pure
function from rows to a `Report`; the terminal, `--json` and `--html` all render that one model.

Every rate is a `Metric`: `figure = count / denominator` (null when the denominator is 0), so a
reader can always see how many claims a percentage stands on. Per-claim costs are an `Amount`:
`figure = count / denominator`, the total divided by the claims, i.e. the mean.

The definitions (all over decided claims, i.e. rows of the store's `decisions` table, optionally
those decided on or after `--since`):

- **conflict**: both the policy and the fraud agent's answers parsed and they differ.
  Denominator: claims where both answers parsed (a claim escalated before any model ran, or
  with an unparsed answer, has nothing to compare).
- **material conflict**: a conflict whose automatic outcome differs from what each agent alone
  would have decided, an agent alone deciding its own answer. Because the two answers differ,
  an automatic answer (ACCEPTED, PREFERRED, ADJUDICATED) always equals one of them, so a
  material conflict is exactly a conflict that the rules and the adjudicator could not settle:
  ESCALATED or ADJUDICATION_REQUIRED, gates included. A human's later decision does not change
  it. Same denominator as conflict.
- **automatic**: ACCEPTED or PREFERRED, decided by the rules alone, over all claims. ADJUDICATED
  is a model's reading of the words, so it is not in this figure; `automatic_with_adjudicator`
  adds it.
- **adjudicator**: claims where the adjudicator was asked, over all claims;
  `adjudicator_outcomes` splits them by what it did (`chose_policy`, `chose_fraud`, `escalate`,
  `invalid`: its answer failed the checks), over the claims where it was asked. A dispute left
  unasked (adjudication disabled) is the outcome ADJUDICATION_REQUIRED.
- **escalated**: outcome ESCALATED, over all claims; `escalation_reasons` counts the escalated
  claims carrying each reason code, over all claims (a claim may carry several codes).
- **parse errors**, per agent (intake, policy, fraud): answers that did not parse, over the
  claims where that agent's task produced an answer (an early policy escalation runs none).
- **model calls, tokens, seconds**: per claim, from the decided attempt; tokens are prompt plus
  completion as the provider reported them; seconds run from the claim's start to its record.

Breakdowns: each `Figures` above is computed again for the claims of one loss type (intake's
`loss_type`, `unknown` when null or intake did not parse), for the claims citing one clause on
one side (canonical id where the re-read found the clause, else as cited), and for the claims
where one IntakeFacts field was null or disputed. The field table also says, for each field,
how often it was null or disputed among the conflicts versus among the agreements, and how often
it was open while either side relied on it (`facts_relied_on`): the columns that point at
`damage_start_date`. A field is null when intake's parsed facts leave it null
(claims whose intake did not parse are left out of the field table: they are parse errors);
it is disputed when intake contradicts the claim file (date_of_loss, amount_claimed, as the
resolver compares them) or the resolver named it in `missing_facts`.

Human reviews: each review of an escalation with a decision of covered or not_covered says which
agent the reviewer sided with. Per agent, `agreed` is the share of those reviews where the
decision equals the agent's answer (needs_more_evidence and unparsed answers are left out), and
the calibration table splits it by the agent's stated confidence in buckets. Reviews only exist
for escalations, so this measures the agents on the hard cases, not on all claims.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from claims_crew.vocabulary import FACT_FIELDS

if TYPE_CHECKING:
    from claims_crew.models import ClaimFile
    from claims_crew.records import ClaimRecord
    from claims_crew.store import Decision, Escalation, Store

AGENTS = ("intake", "policy", "fraud")
SIDES = ("policy", "fraud")
OUTCOMES = ("ACCEPTED", "PREFERRED", "ADJUDICATED", "ADJUDICATION_REQUIRED", "ESCALATED")
AUTOMATIC = ("ACCEPTED", "PREFERRED")
DECIDED = ("ACCEPTED", "PREFERRED", "ADJUDICATED")
WAITING = ("ESCALATED", "ADJUDICATION_REQUIRED")
ADJUDICATOR_OUTCOMES = ("chose_policy", "chose_fraud", "escalate", "invalid")
HUMAN_DECISIONS = ("covered", "not_covered", "needs_more_evidence")
# Stated-confidence buckets for the calibration table: [low, high), the last one closed.
BUCKETS: tuple[tuple[float, float], ...] = (
    (0.0, 0.5),
    (0.5, 0.6),
    (0.6, 0.7),
    (0.7, 0.8),
    (0.8, 0.9),
    (0.9, 1.0),
)
STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
# (policy matches the reviewer, fraud matches the reviewer) → whom the reviewer sided with.
SIDED = {
    (True, True): "both",
    (True, False): "policy",
    (False, True): "fraud",
    (False, False): "neither",
}


# ---- one claim, reduced ------------------------------------------------------------------


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
        return self.conflict and self.outcome not in DECIDED

    @property
    def waiting(self) -> bool:
        """Left for a person: escalated, or a dispute nobody adjudicated."""
        return self.outcome in WAITING

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
) -> ClaimRow:
    """A row from JSON-shaped parts, the way both loaders see a claim."""
    sides = resolution.get("sides") or {}
    missing = tuple(resolution.get("missing_facts") or ())
    null: tuple[str, ...]
    disputed: tuple[str, ...]
    if intake is None:
        state, loss_type, null, disputed = "absent", None, (), ()
    elif intake.get("kind") == "parse_error":
        state, loss_type, null, disputed = "parse_error", None, (), ()
    else:
        state = "parsed"
        loss_type = intake.get("loss_type")
        null = tuple(f for f in FACT_FIELDS if intake.get(f) is None)
        named = [f for f in missing if f not in null]
        contradicted = {*_disputed(intake, claim_file), *named}
        disputed = tuple(f for f in FACT_FIELDS if f in contradicted)
    adjudicator = None
    if adjudication is not None:
        valid, choice = adjudication
        if not valid:
            adjudicator = "invalid"
        elif choice in SIDES:
            adjudicator = f"chose_{choice}"
        else:
            adjudicator = "escalate"
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
    )


def row_from(
    decision: Decision,
    record: ClaimRecord | None,
    claim_file: ClaimFile | None = None,
    escalation: Escalation | None = None,
) -> ClaimRow:
    """A row from the store's objects (Store.decisions, claim_record, claim_file, escalation)."""

    def dumped(model: BaseModel | None) -> dict[str, Any] | None:
        return None if model is None else model.model_dump(mode="json")

    adjudication = None
    if record is not None and record.adjudication is not None:
        adjudication = (record.adjudication.valid, record.adjudication.choice)
    return build_row(
        claim_id=decision.claim_id,
        decided_at=decision.decided_at,
        outcome=decision.outcome,
        answer=decision.answer,
        resolution=decision.resolution.model_dump(mode="json"),
        intake=dumped(record.intake) if record else None,
        policy=dumped(record.policy) if record else None,
        fraud=dumped(record.fraud) if record else None,
        adjudication=adjudication,
        review=decision.review.decision if decision.review else None,
        escalation=(escalation.id, escalation.state) if escalation else None,
        claim_file=dumped(claim_file),
        model_calls=sum(record.model_calls.values()) if record else 0,
        tokens=sum(record.tokens.values()) if record else 0,
        seconds=record.seconds if record else 0.0,
    )


_ROWS_SQL = """
SELECT d.claim_id, d.decided_at, d.outcome, d.answer, r.body,
       (SELECT total(value) FROM json_each(a.model_calls)),
       (SELECT total(value) FROM json_each(a.tokens)), a.started_at, a.finished_at,
       oi.parsed, op.parsed, of.parsed, j.valid, j.choice, v.decision, e.id, e.state,
       json_extract(f.fields, '$.date_of_loss'), json_extract(f.fields, '$.amount')
FROM decisions d
JOIN resolutions r ON r.id = d.resolution_id
JOIN attempts a ON a.id = d.attempt_id
LEFT JOIN agent_outputs oi ON oi.attempt_id = d.attempt_id AND oi.task = 'intake_task'
LEFT JOIN agent_outputs op ON op.attempt_id = d.attempt_id AND op.task = 'policy_task'
LEFT JOIN agent_outputs of ON of.attempt_id = d.attempt_id AND of.task = 'fraud_task'
LEFT JOIN adjudications j ON j.attempt_id = d.attempt_id
LEFT JOIN reviews v ON v.claim_id = d.claim_id
LEFT JOIN escalations e ON e.claim_id = d.claim_id
LEFT JOIN claim_files f ON f.claim_id = d.claim_id AND f.sha256 = d.claim_sha256
WHERE d.decided_at >= ?
ORDER BY d.claim_id
"""


def since_stamp(since: date | None) -> str:
    """The store's text form of the first moment of `since` (UTC), for comparing stamps."""
    if since is None:
        return ""
    return datetime(since.year, since.month, since.day, tzinfo=UTC).strftime(STAMP_FORMAT)


def _seconds(started: str, finished: str) -> float:
    # fromisoformat reads the store's fixed-width UTC stamps, many times faster than strptime.
    fromiso = datetime.fromisoformat
    return (fromiso(finished) - fromiso(started)).total_seconds()


def load_rows(store: Store, since: date | None = None) -> list[ClaimRow]:
    """Every decided claim (on or after `since`, UTC) in one read-only pass over the store."""
    loads = json.loads
    rows = []
    with store.read() as conn:
        cursor = conn.execute(_ROWS_SQL, (since_stamp(since),))
        for (
            claim_id,
            decided_at,
            outcome,
            answer,
            body,
            model_calls,
            tokens,
            started,
            finished,
            intake,
            policy,
            fraud,
            valid,
            choice,
            review,
            escalation_id,
            escalation_state,
            file_loss_date,
            file_amount,
        ) in cursor:
            rows.append(
                build_row(
                    claim_id=claim_id,
                    decided_at=decided_at,
                    outcome=outcome,
                    answer=answer,
                    resolution=loads(body),
                    intake=loads(intake) if intake else None,
                    policy=loads(policy) if policy else None,
                    fraud=loads(fraud) if fraud else None,
                    adjudication=None if valid is None else (bool(valid), choice),
                    review=review,
                    escalation=None if escalation_id is None else (escalation_id, escalation_state),
                    claim_file=None
                    if file_loss_date is None
                    else {"date_of_loss": file_loss_date, "amount": file_amount},
                    model_calls=int(model_calls),
                    tokens=int(tokens),
                    seconds=_seconds(started, finished),
                )
            )
    return rows


# ---- the report --------------------------------------------------------------------------


class Metric(BaseModel):
    """figure = count / denominator; null when the denominator is 0."""

    figure: float | None
    count: int
    denominator: int


class Amount(BaseModel):
    """figure = count / denominator: a total over claims, and its mean per claim."""

    figure: float | None
    count: float
    denominator: int


def metric(count: int, denominator: int) -> Metric:
    return Metric(
        figure=round(count / denominator, 6) if denominator else None,
        count=count,
        denominator=denominator,
    )


def amount(total: float, denominator: int) -> Amount:
    return Amount(
        figure=round(total / denominator, 6) if denominator else None,
        count=round(total, 6),
        denominator=denominator,
    )


class Figures(BaseModel):
    """Every metric over one set of claims; the module docstring defines each."""

    claims: int
    outcomes: dict[str, Metric]
    conflict: Metric
    material_conflict: Metric
    automatic: Metric
    automatic_with_adjudicator: Metric
    adjudicator: Metric
    adjudicator_outcomes: dict[str, Metric]
    escalated: Metric
    escalation_reasons: dict[str, Metric]
    parse_errors: dict[str, Metric]
    model_calls: Amount
    tokens: Amount
    seconds: Amount

    def headline(self) -> list[tuple[str, Metric]]:
        """The six rates every view of the report leads with, labelled."""
        return [
            ("conflict (answers differ)", self.conflict),
            ("material conflict", self.material_conflict),
            ("automatic (ACCEPTED + PREFERRED)", self.automatic),
            ("automatic incl. ADJUDICATED", self.automatic_with_adjudicator),
            ("adjudicator asked", self.adjudicator),
            ("escalated", self.escalated),
        ]


class LossTypeRow(BaseModel):
    loss_type: str
    figures: Figures


class FieldRow(BaseModel):
    """One IntakeFacts field: how often it was open in the conflicts, and in the agreements."""

    field: str
    null_in_conflicts: Metric
    disputed_in_conflicts: Metric
    open_in_conflicts: Metric = Field(description="Null or disputed, over the conflicts.")
    relied_open_in_conflicts: Metric = Field(
        description="Null or disputed and relied on by either side, over the conflicts."
    )
    open_in_agreements: Metric = Field(description="Null or disputed, over the agreements.")
    asked: Metric = Field(description="Named in missing_facts, over the escalated claims.")
    figures: Figures = Field(description="Every metric over the claims where it was open.")


class ClauseRow(BaseModel):
    side: str
    clause: str
    verified: Metric = Field(description="Citations of it that re-read as verified.")
    figures: Figures = Field(description="Every metric over the claims where the side cites it.")


class Bucket(BaseModel):
    low: float
    high: float
    mean_confidence: float | None
    agreed: Metric


class AgentAgreement(BaseModel):
    agent: str
    agreed: Metric
    calibration: list[Bucket]


class ReviewFigures(BaseModel):
    reviewed: Metric = Field(description="Reviewed escalations, over claims left for a person.")
    decisions: dict[str, int]
    sided_with: dict[str, Metric] = Field(
        description="policy, fraud (only that agent's answer), both, neither; over reviews "
        "deciding covered or not_covered where both answers parsed."
    )
    agents: list[AgentAgreement]


class EscalationLink(BaseModel):
    claim_id: str
    escalation_id: int | None
    outcome: str
    reason_codes: list[str]
    question: str | None
    state: str | None
    review: str | None


class Report(BaseModel):
    since: date | None
    generated_at: datetime
    overall: Figures
    by_loss_type: list[LossTypeRow]
    by_field: list[FieldRow]
    by_clause: list[ClauseRow]
    reviews: ReviewFigures
    escalations: list[EscalationLink]


def _count(rows: Iterable[ClaimRow], test: Callable[[ClaimRow], bool]) -> int:
    return sum(1 for r in rows if test(r))


def figures(rows: Sequence[ClaimRow]) -> Figures:
    n = len(rows)
    outcome_counts = Counter(r.outcome for r in rows)
    compared = _count(rows, lambda r: r.compared)
    asked = [r for r in rows if r.adjudicator is not None]
    adjudicated = Counter(r.adjudicator for r in asked)
    escalated = [r for r in rows if r.outcome == "ESCALATED"]
    reasons = Counter(code for r in escalated for code in dict.fromkeys(r.reason_codes))
    parse_errors = {}
    for agent in AGENTS:
        states = [e for e in (r.parse_error(agent) for r in rows) if e is not None]
        parse_errors[agent] = metric(sum(states), len(states))
    return Figures(
        claims=n,
        outcomes={o: metric(outcome_counts[o], n) for o in OUTCOMES},
        conflict=metric(_count(rows, lambda r: r.conflict), compared),
        material_conflict=metric(_count(rows, lambda r: r.material_conflict), compared),
        automatic=metric(sum(outcome_counts[o] for o in AUTOMATIC), n),
        automatic_with_adjudicator=metric(sum(outcome_counts[o] for o in DECIDED), n),
        adjudicator=metric(len(asked), n),
        adjudicator_outcomes={o: metric(adjudicated[o], len(asked)) for o in ADJUDICATOR_OUTCOMES},
        escalated=metric(len(escalated), n),
        escalation_reasons={code: metric(c, n) for code, c in sorted(reasons.items())},
        parse_errors=parse_errors,
        model_calls=amount(sum(r.model_calls for r in rows), n),
        tokens=amount(sum(r.tokens for r in rows), n),
        seconds=amount(sum(r.seconds for r in rows), n),
    )


def _field_row(
    name: str,
    with_facts: Sequence[ClaimRow],
    conflicts: Sequence[ClaimRow],
    agreements: Sequence[ClaimRow],
    escalated: Sequence[ClaimRow],
) -> FieldRow:
    def null(r: ClaimRow) -> bool:
        return name in r.null_fields

    def disputed(r: ClaimRow) -> bool:
        return name in r.disputed_fields

    def is_open(r: ClaimRow) -> bool:
        return null(r) or disputed(r)

    def relied_open(r: ClaimRow) -> bool:
        return is_open(r) and (name in r.policy.facts_relied_on or name in r.fraud.facts_relied_on)

    return FieldRow(
        field=name,
        null_in_conflicts=metric(_count(conflicts, null), len(conflicts)),
        disputed_in_conflicts=metric(_count(conflicts, disputed), len(conflicts)),
        open_in_conflicts=metric(_count(conflicts, is_open), len(conflicts)),
        relied_open_in_conflicts=metric(_count(conflicts, relied_open), len(conflicts)),
        open_in_agreements=metric(_count(agreements, is_open), len(agreements)),
        asked=metric(_count(escalated, lambda r: name in r.missing_facts), len(escalated)),
        figures=figures([r for r in with_facts if is_open(r)]),
    )


def field_rows(rows: Sequence[ClaimRow]) -> list[FieldRow]:
    with_facts = [r for r in rows if r.intake == "parsed"]
    conflicts = [r for r in with_facts if r.conflict]
    agreements = [r for r in with_facts if r.agreed]
    escalated = [r for r in with_facts if r.outcome == "ESCALATED"]
    result = [_field_row(n, with_facts, conflicts, agreements, escalated) for n in FACT_FIELDS]
    # The field that most often sits open behind a conflict first.
    order: dict[str, int] = {name: i for i, name in enumerate(FACT_FIELDS)}
    result.sort(key=lambda f: (-f.open_in_conflicts.count, order[f.field]))
    return result


def clause_rows(rows: Sequence[ClaimRow]) -> list[ClauseRow]:
    citing: dict[tuple[str, str], list[ClaimRow]] = {}
    verified: Counter[tuple[str, str]] = Counter()
    cited: Counter[tuple[str, str]] = Counter()
    for r in rows:
        for side in SIDES:
            s = r.side(side)
            for clause, ok in zip(s.clauses, s.verified, strict=True):
                key = (side, clause)
                cited[key] += 1
                verified[key] += ok
                bucket = citing.setdefault(key, [])
                if not bucket or bucket[-1] is not r:
                    bucket.append(r)
    keys = sorted(citing, key=lambda k: (SIDES.index(k[0]), -len(citing[k]), k[1]))
    return [
        ClauseRow(
            side=side,
            clause=clause,
            verified=metric(verified[(side, clause)], cited[(side, clause)]),
            figures=figures(citing[(side, clause)]),
        )
        for side, clause in keys
    ]


def loss_type_rows(rows: Sequence[ClaimRow]) -> list[LossTypeRow]:
    groups: dict[str, list[ClaimRow]] = {}
    for r in rows:
        groups.setdefault(r.loss_type or "unknown", []).append(r)
    return [
        LossTypeRow(loss_type=name, figures=figures(group))
        for name, group in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def _bucket_of(confidence: float) -> int:
    for i, (low, high) in enumerate(BUCKETS):
        if low <= confidence < high:
            return i
    return len(BUCKETS) - 1  # 1.0 belongs to the last, closed bucket


def _agreement(agent: str, definite: Sequence[ClaimRow]) -> AgentAgreement:
    def agreed(r: ClaimRow) -> bool:
        return r.side(agent).answer == r.review

    answered = [r for r in definite if r.side(agent).parsed]
    buckets: list[list[ClaimRow]] = [[] for _ in BUCKETS]
    for r in answered:
        confidence = r.side(agent).confidence
        if confidence is not None:
            buckets[_bucket_of(confidence)].append(r)
    calibration = []
    for (low, high), group in zip(BUCKETS, buckets, strict=True):
        stated = [c for r in group if (c := r.side(agent).confidence) is not None]
        calibration.append(
            Bucket(
                low=low,
                high=high,
                mean_confidence=round(statistics.fmean(stated), 6) if stated else None,
                agreed=metric(_count(group, agreed), len(group)),
            )
        )
    return AgentAgreement(
        agent=agent, agreed=metric(_count(answered, agreed), len(answered)), calibration=calibration
    )


def review_figures(rows: Sequence[ClaimRow]) -> ReviewFigures:
    waiting = [r for r in rows if r.escalation_id is not None or r.waiting]
    reviewed = [r for r in rows if r.review is not None]
    definite = [r for r in reviewed if r.review in ("covered", "not_covered")]
    both = [r for r in definite if r.compared]
    sided: Counter[str] = Counter()
    for r in both:
        key = (r.policy.answer == r.review, r.fraud.answer == r.review)
        sided[SIDED[key]] += 1
    agents = [_agreement(agent, definite) for agent in SIDES]
    counts = Counter(r.review for r in reviewed)
    return ReviewFigures(
        reviewed=metric(len(reviewed), len(waiting)),
        decisions={d: counts[d] for d in HUMAN_DECISIONS},
        sided_with={k: metric(sided[k], len(both)) for k in SIDED.values()},
        agents=agents,
    )


def build_report(
    rows: Sequence[ClaimRow], since: date | None = None, now: datetime | None = None
) -> Report:
    """The report over the rows decided on or after `since` (UTC); pure but for `now`."""
    cutoff = since_stamp(since)
    rows = [r for r in rows if r.decided_at >= cutoff]
    escalations = [
        EscalationLink(
            claim_id=r.claim_id,
            escalation_id=r.escalation_id,
            outcome=r.outcome,
            reason_codes=list(r.reason_codes),
            question=r.question,
            state=r.escalation_state,
            review=r.review,
        )
        for r in rows
        if r.waiting
    ]
    # Open ones first: they are what a person still has to look at.
    escalations.sort(key=lambda e: (e.state != "open", e.claim_id))
    return Report(
        since=since,
        generated_at=now or datetime.now(UTC),
        overall=figures(rows),
        by_loss_type=loss_type_rows(rows),
        by_field=field_rows(rows),
        by_clause=clause_rows(rows),
        reviews=review_figures(rows),
        escalations=escalations,
    )


def report(store: Store, since: date | None = None) -> Report:
    return build_report(load_rows(store, since), since)
