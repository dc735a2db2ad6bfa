"""The disagreement and coverage report over the decisions in the store.

`build_report` is a pure function from rows (rows.py) to a `Report`; the terminal, `--json` and
`--html` all render that one model. The metrics each `Figures` holds are defined in metrics.py.

Breakdowns: the overall `Figures` is computed again for the claims of one loss type (intake's
`loss_type`, `unknown` when null or intake did not parse), for the claims citing one clause on
one side (canonical id where the re-read found the clause, else as cited), and for the claims
where one IntakeFacts field was open: null, unverified (stated, but its source does not bear
it out) or disputed. The field table also says, for each field, how often it was null,
unverified or disputed among the conflicts, how often open among the agreements, and how often
it was open while either side relied on it (`facts_relied_on`): the columns that point at
`damage_start_date`. Null, unverified and disputed are defined in rows.py; claims whose intake
did not parse are left out of the field table (they are parse errors).

Human reviews: each review of an escalation with a decision of covered or not_covered says which
agent the reviewer sided with. Per agent, `agreed` is the share of those reviews where the
decision equals the agent's answer (needs_more_evidence, unparsed answers and abstentions, which
claim nothing to be right about, are left out), and the calibration table splits it by the
agent's stated confidence in buckets. Reviews only exist for escalations, so this measures the
agents on the hard cases, not on all claims.

Tokens, cost and time per level (usage.py) come with the figures: cost only when a price table
(config/prices.yaml) is given, and the report says which outcomes count as a resolved conflict.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from claims_crew.records.claim_row import BUCKETS, bucket_of
from claims_crew.report.desk import DeskFigures
from claims_crew.report.metrics import (
    Figures,
    Metric,
    count_where,
    figures,
    metric,
    size,
    tally,
)
from claims_crew.report.rows import ClaimRow
from claims_crew.report.usage import (
    CostFigures,
    LevelTime,
    cost_figures,
    time_per_level,
)
from claims_crew.resolver.external_codes import ExternalCodes
from claims_crew.vocabulary import (
    ABSTENTION,
    DEFINITE_DECISIONS,
    FACT_FIELDS,
    HUMAN_DECISIONS,
    SIDES,
    day_stamp,
    utc_now,
)

if TYPE_CHECKING:
    from claims_crew.prices import PriceTable

# (policy matches the reviewer, fraud matches the reviewer) → whom the reviewer sided with.
SIDED = {
    (True, True): "both",
    (True, False): "policy",
    (False, True): "fraud",
    (False, False): "neither",
}


class LossTypeRow(BaseModel):
    loss_type: str
    figures: Figures


class FieldRow(BaseModel):
    """One IntakeFacts field: how often it was open in the conflicts, and in the agreements."""

    field: str
    null_in_conflicts: Metric
    unverified_in_conflicts: Metric = Field(
        description="Stated by intake but not borne out by the claim, over the conflicts."
    )
    disputed_in_conflicts: Metric
    open_in_conflicts: Metric = Field(
        description="Null, unverified or disputed, over the conflicts."
    )
    relied_open_in_conflicts: Metric = Field(
        description="Open and relied on by either side, over the conflicts."
    )
    open_in_agreements: Metric = Field(description="Open, over the agreements.")
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
    external_code: str | None = Field(
        None, description="The first reason code's code in config/reason_codes.yaml."
    )


class Report(BaseModel):
    since: date | None
    generated_at: datetime
    overall: Figures
    by_loss_type: list[LossTypeRow]
    by_field: list[FieldRow]
    by_clause: list[ClauseRow]
    reviews: ReviewFigures
    escalations: list[EscalationLink] = Field(
        description="Claims left for a person, open ones first: the first 500 of them."
    )
    cost: CostFigures = Field(description="Tokens and cost by task, per decision (usage.py).")
    time_per_level: list[LevelTime] = Field(description="Seconds at each level (usage.py).")
    desk: DeskFigures | None = Field(
        None, description="Ageing of open escalations and on-time rates (desk.py)."
    )
    external_codes: dict[str, str] = Field(
        default_factory=dict,
        description="Each reason code the report names → its code in config/reason_codes.yaml.",
    )
    decided: int = Field(
        0, description="Of the claims reviewed, those decided: by the rules or by a person."
    )
    escalated: int = Field(0, description="Of the claims reviewed, those still left for a person.")

    def standing_line(self) -> str:
        """The header's counts: claims decided, not decision rows; open ones as escalated."""
        return (
            f"{self.overall.claims} claims reviewed: {self.decided} decided "
            f"(by the rules or a person), {self.escalated} escalated"
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

    def unverified(r: ClaimRow) -> bool:
        return name in r.unverified_fields

    def is_open(r: ClaimRow) -> bool:
        return null(r) or unverified(r) or disputed(r)

    def relied_open(r: ClaimRow) -> bool:
        return is_open(r) and (name in r.policy.facts_relied_on or name in r.fraud.facts_relied_on)

    return FieldRow(
        field=name,
        null_in_conflicts=metric(count_where(conflicts, null), size(conflicts)),
        unverified_in_conflicts=metric(count_where(conflicts, unverified), size(conflicts)),
        disputed_in_conflicts=metric(count_where(conflicts, disputed), size(conflicts)),
        open_in_conflicts=metric(count_where(conflicts, is_open), size(conflicts)),
        relied_open_in_conflicts=metric(count_where(conflicts, relied_open), size(conflicts)),
        open_in_agreements=metric(count_where(agreements, is_open), size(agreements)),
        asked=metric(count_where(escalated, lambda r: name in r.missing_facts), size(escalated)),
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
                cited[key] += r.weight
                verified[key] += ok * r.weight
                bucket = citing.setdefault(key, [])
                if not bucket or bucket[-1] is not r:
                    bucket.append(r)
    keys = sorted(citing, key=lambda k: (SIDES.index(k[0]), -size(citing[k]), k[1]))
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
        for name, group in sorted(groups.items(), key=lambda kv: (-size(kv[1]), kv[0]))
    ]


def _agreement(agent: str, definite: Sequence[ClaimRow]) -> AgentAgreement:
    def agreed(r: ClaimRow) -> bool:
        return r.side(agent).answer == r.review

    answered = [r for r in definite if r.side(agent).parsed and r.side(agent).answer != ABSTENTION]
    buckets: list[list[ClaimRow]] = [[] for _ in BUCKETS]
    for r in answered:
        confidence = r.side(agent).confidence
        if confidence is not None:
            buckets[bucket_of(confidence)].append(r)
    calibration = []
    for (low, high), group in zip(BUCKETS, buckets, strict=True):
        # A row standing for several claims holds their mean confidence: weigh it by them.
        stated = [(c, r.weight) for r in group if (c := r.side(agent).confidence) is not None]
        claims = sum(w for _, w in stated)
        mean = math.fsum(c * w for c, w in stated) / claims if claims else None
        calibration.append(
            Bucket(
                low=low,
                high=high,
                mean_confidence=None if mean is None else round(mean, 6),
                agreed=metric(count_where(group, agreed), size(group)),
            )
        )
    return AgentAgreement(
        agent=agent,
        agreed=metric(count_where(answered, agreed), size(answered)),
        calibration=calibration,
    )


def review_figures(rows: Sequence[ClaimRow]) -> ReviewFigures:
    waiting = [r for r in rows if r.escalation_id is not None or r.waiting]
    reviewed = [r for r in rows if r.review is not None]
    definite = [r for r in reviewed if r.review in DEFINITE_DECISIONS]
    both = [r for r in definite if r.compared]
    sided = tally(both, lambda r: SIDED[(r.policy.answer == r.review, r.fraud.answer == r.review)])
    agents = [_agreement(agent, definite) for agent in SIDES]
    counts = tally(reviewed, lambda r: r.review)
    return ReviewFigures(
        reviewed=metric(size(reviewed), size(waiting)),
        decisions={d: counts[d] for d in HUMAN_DECISIONS},
        sided_with={k: metric(sided[k], size(both)) for k in SIDED.values()},
        agents=agents,
    )


def escalation_link(
    claim_id: str,
    escalation_id: int | None,
    outcome: str,
    reason_codes: Sequence[str],
    question: str | None,
    state: str | None,
    review: str | None,
    codes: ExternalCodes | None,
) -> EscalationLink:
    found = codes.for_reasons(tuple(reason_codes)) if codes else None
    return EscalationLink(
        claim_id=claim_id,
        escalation_id=escalation_id,
        outcome=outcome,
        reason_codes=list(reason_codes),
        question=question,
        state=state,
        review=review,
        external_code=found[0] if found else None,
    )


def build_report(
    rows: Sequence[ClaimRow],
    since: date | None = None,
    now: datetime | None = None,
    prices: PriceTable | None = None,
    desk: DeskFigures | None = None,
    codes: ExternalCodes | None = None,
    listed: tuple[list[EscalationLink], list[LevelTime]] | None = None,
) -> Report:
    """The report over the rows decided on or after `since` (UTC); pure but for `now`.
    Costs are at `prices`; without a table, none are shown. `desk`: the desk's figures.
    `codes` names the team's code beside each reason code; without a mapping, none is shown.
    `listed`: the escalations listed and the time per level, where the rows are groups
    (ClaimRow.weight) that cannot give them; without it, both are taken from the rows."""
    cutoff = day_stamp(since)
    rows = [r for r in rows if r.decided_at >= cutoff]
    if listed is None:
        escalations = [
            escalation_link(
                r.claim_id,
                r.escalation_id,
                r.outcome,
                r.reason_codes,
                r.question,
                r.escalation_state,
                r.review,
                codes,
            )
            for r in rows
            if r.waiting
        ]
        # Open ones first: they are what a person still has to look at.
        escalations.sort(key=lambda e: (e.state != "open", e.claim_id))
        levels = time_per_level(rows)
    else:
        escalations, levels = listed
    # Where each claim stands, as store/claim_states.py says it: a claim left for a person is
    # escalated until a person decides it (no escalation row: open all the same).
    still_open = count_where(rows, lambda r: r.waiting and r.escalation_state != "decided")
    return Report(
        since=since,
        generated_at=now or utc_now(),
        overall=figures(rows),
        by_loss_type=loss_type_rows(rows),
        by_field=field_rows(rows),
        by_clause=clause_rows(rows),
        reviews=review_figures(rows),
        escalations=escalations,
        cost=cost_figures(rows, prices),
        time_per_level=levels,
        desk=desk,
        external_codes={
            c: codes.reason_codes[c]
            for r in rows
            for c in r.reason_codes
            if codes is not None and c in codes.reason_codes
        },
        decided=size(rows) - still_open,
        escalated=still_open,
    )
