"""A shadow against production, claim by claim: what the config or models under test change.

`compare` is a pure function from two sets of report rows (rows.py), production's ("before")
and a shadow's ("after"), to a `Comparison`; `claims-crew compare` renders it in the terminal
and as JSON. Every figure is read with the report's own definitions, never a second copy:
outcomes and escalations from `ClaimRow`, the headline rates from metrics.py, disagreement by
field from build.py's field table, and safe coverage and unsafe automatic decisions from
evaluate.py.

What it says:

- per claim decided on both sides: the outcome before → after, the decided answer, each
  reviewing agent's answer (`parse_error` where it did not parse), whether an escalation is new
  (automatic before, left for a person after) or resolved (the other way round), and which
  IntakeFacts fields were open (null, unverified or disputed) before and after;
- claims decided on one side only, listed as such and left out of every figure, so that both
  sides of each figure stand on the same claims;
- totals: how many claims changed in each of those ways, and the outcome transitions;
- the report's headline rates and its field table, before and after, over the compared claims;
- with labels: the evaluation's safe coverage, unsafe automatic decisions (and the rest of its
  automatic split) before and after, over the labelled compared claims, and each claim's
  verdict on each side: safe, unsafe, ambiguous_decided, or left_for_person.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from claims_crew.report.build import field_rows
from claims_crew.report.evaluate import Label, Mismatch, evaluate
from claims_crew.report.metrics import Figures, Metric, figures
from claims_crew.report.rows import ClaimRow, SideRow, load_rows
from claims_crew.vocabulary import FACT_FIELDS, SIDES

if TYPE_CHECKING:
    from claims_crew.store import Store

Presence = Literal["both", "production_only", "shadow_only"]
EscalationChange = Literal["new", "resolved"]
Verdict = Literal["safe", "unsafe", "ambiguous_decided", "left_for_person"]
FieldState = Literal["null", "unverified", "disputed"]

# The report's headline rates (metrics.Figures.headline), by their JSON names.
HEADLINE = (
    "conflict",
    "material_conflict",
    "automatic",
    "automatic_with_adjudicator",
    "adjudicator",
    "escalated",
)
# The evaluation's split of automatic decisions (evaluate.Evaluation), by their JSON names.
LABEL_FIGURES = ("automatic", "safe_coverage", "unsafe_automatic", "ambiguous_decided")


class Decided(BaseModel):
    """One claim as one side decided it."""

    outcome: str
    answer: str | None
    rule: str
    reason_codes: list[str]
    answers: dict[str, str | None] = Field(
        description="Each reviewing agent's answer; parse_error where it did not parse, null "
        "where it never ran."
    )
    conflict: bool = Field(description="Both answers parsed and differ.")
    open_fields: dict[str, FieldState] = Field(
        description="IntakeFacts fields null, unverified or disputed in this decision."
    )
    review: str | None = Field(description="A person's decision of its escalation, if any.")
    verdict: Verdict | None = Field(None, description="Against its label, when it has one.")


class ClaimChange(BaseModel):
    claim_id: str
    presence: Presence
    label: str | None = None
    before: Decided | None = Field(description="Production's decision; null if it has none.")
    after: Decided | None = Field(description="The shadow's decision; null if it has none.")
    outcome_changed: bool = False
    answer_changed: bool = Field(False, description="The decided answer differs.")
    agents_changed: list[str] = Field(
        default_factory=list, description="Reviewing agents whose answer differs."
    )
    escalation: EscalationChange | None = None
    fields_opened: list[str] = Field(default_factory=list, description="Open after, not before.")
    fields_closed: list[str] = Field(default_factory=list, description="Open before, not after.")

    @property
    def changed(self) -> bool:
        return bool(
            self.presence != "both"
            or self.outcome_changed
            or self.answer_changed
            or self.agents_changed
            or self.fields_opened
            or self.fields_closed
        )


class Transition(BaseModel):
    before: str
    after: str
    claims: int


class Totals(BaseModel):
    production: int = Field(description="Claims production decided.")
    shadow: int = Field(description="Claims the shadow decided.")
    compared: int = Field(description="Claims both decided: every figure stands on these.")
    production_only: int
    shadow_only: int
    outcome_changed: int
    answer_changed: int
    agents_changed: dict[str, int] = Field(description="Per reviewing agent: answers changed.")
    new_escalations: int
    resolved_escalations: int
    transitions: list[Transition] = Field(description="Outcome before → after, changed ones.")


class FieldChange(BaseModel):
    """One field's row of the report's field table, before and after."""

    field: str
    before: dict[str, Metric]
    after: dict[str, Metric]


class LabelChange(BaseModel):
    labels: int
    matched: int = Field(description="Labelled claims both sides decided.")
    unmatched: list[str] = Field(description="Labelled claims not decided on both sides.")
    before: dict[str, Metric]
    after: dict[str, Metric]
    unsafe_before: list[Mismatch]
    unsafe_after: list[Mismatch]


class Comparison(BaseModel):
    shadow: str
    totals: Totals
    before: dict[str, Metric] = Field(description="The report's headline rates in production.")
    after: dict[str, Metric] = Field(description="The same rates in the shadow.")
    by_field: list[FieldChange]
    labels: LabelChange | None
    claims: list[ClaimChange]


def _agent_answer(side: SideRow) -> str | None:
    if not side.ran:
        return None
    return side.answer if side.parsed else "parse_error"


def _open_fields(row: ClaimRow) -> dict[str, FieldState]:
    states: dict[str, FieldState] = {}
    for name in FACT_FIELDS:
        if name in row.null_fields:
            states[name] = "null"
        elif name in row.unverified_fields:
            states[name] = "unverified"
        elif name in row.disputed_fields:
            states[name] = "disputed"
    return states


def _verdict(row: ClaimRow, label: Label) -> Verdict:
    """The evaluation's own split, over this one claim."""
    one = evaluate([row], {row.claim_id: label})
    if one.safe_coverage.count:
        return "safe"
    if one.unsafe_automatic.count:
        return "unsafe"
    if one.ambiguous_decided.count:
        return "ambiguous_decided"
    return "left_for_person"


def _decided(row: ClaimRow, label: Label | None) -> Decided:
    return Decided(
        outcome=row.outcome,
        answer=row.answer,
        rule=row.rule,
        reason_codes=list(row.reason_codes),
        answers={side: _agent_answer(row.side(side)) for side in SIDES},
        conflict=row.conflict,
        open_fields=_open_fields(row),
        review=row.review,
        verdict=_verdict(row, label) if label is not None else None,
    )


def _change(
    claim_id: str, before: ClaimRow | None, after: ClaimRow | None, label: Label | None
) -> ClaimChange:
    old = _decided(before, label) if before is not None else None
    new = _decided(after, label) if after is not None else None
    if before is None or after is None or old is None or new is None:
        presence: Presence = "shadow_only" if before is None else "production_only"
        return ClaimChange(claim_id=claim_id, presence=presence, label=label, before=old, after=new)
    escalation: EscalationChange | None = None
    if after.waiting and not before.waiting:
        escalation = "new"
    elif before.waiting and not after.waiting:
        escalation = "resolved"
    return ClaimChange(
        claim_id=claim_id,
        presence="both",
        label=label,
        before=old,
        after=new,
        outcome_changed=before.outcome != after.outcome,
        answer_changed=before.answer != after.answer,
        agents_changed=[s for s in SIDES if old.answers[s] != new.answers[s]],
        escalation=escalation,
        fields_opened=[f for f in new.open_fields if f not in old.open_fields],
        fields_closed=[f for f in old.open_fields if f not in new.open_fields],
    )


def _headline(f: Figures) -> dict[str, Metric]:
    return {name: getattr(f, name) for name in HEADLINE}


def _by_field(before: Sequence[ClaimRow], after: Sequence[ClaimRow]) -> list[FieldChange]:
    def metrics(rows: Sequence[ClaimRow]) -> dict[str, dict[str, Metric]]:
        return {
            row.field: {k: v for k, v in row if isinstance(v, Metric)} for row in field_rows(rows)
        }

    old, new = metrics(before), metrics(after)
    order: dict[str, int] = {name: i for i, name in enumerate(FACT_FIELDS)}

    def weight(name: str) -> tuple[int, int]:
        return (
            -(old[name]["open_in_conflicts"].count + new[name]["open_in_conflicts"].count),
            order[name],
        )

    return [
        FieldChange(field=name, before=old[name], after=new[name])
        for name in sorted(FACT_FIELDS, key=weight)
    ]


def _labels(
    before: Sequence[ClaimRow], after: Sequence[ClaimRow], labels: Mapping[str, Label]
) -> LabelChange:
    old, new = evaluate(before, labels), evaluate(after, labels)
    return LabelChange(
        labels=len(labels),
        matched=old.matched,
        unmatched=old.unmatched,
        before={name: getattr(old, name) for name in LABEL_FIGURES},
        after={name: getattr(new, name) for name in LABEL_FIGURES},
        unsafe_before=old.unsafe,
        unsafe_after=new.unsafe,
    )


def compare(
    shadow: str,
    before: Sequence[ClaimRow],
    after: Sequence[ClaimRow],
    labels: Mapping[str, Label] | None = None,
) -> Comparison:
    """Production's rows (`before`) against the shadow's (`after`); pure."""
    old = {r.claim_id: r for r in before}
    new = {r.claim_id: r for r in after}
    claims = [
        _change(c, old.get(c), new.get(c), (labels or {}).get(c)) for c in sorted({*old, *new})
    ]
    both = [c.claim_id for c in claims if c.presence == "both"]
    old_rows, new_rows = [old[c] for c in both], [new[c] for c in both]
    compared = [c for c in claims if c.presence == "both"]
    moves = Counter(
        (c.before.outcome, c.after.outcome)
        for c in compared
        if c.outcome_changed and c.before is not None and c.after is not None
    )
    totals = Totals(
        production=len(old),
        shadow=len(new),
        compared=len(both),
        production_only=sum(c.presence == "production_only" for c in claims),
        shadow_only=sum(c.presence == "shadow_only" for c in claims),
        outcome_changed=sum(c.outcome_changed for c in compared),
        answer_changed=sum(c.answer_changed for c in compared),
        agents_changed={s: sum(s in c.agents_changed for c in compared) for s in SIDES},
        new_escalations=sum(c.escalation == "new" for c in compared),
        resolved_escalations=sum(c.escalation == "resolved" for c in compared),
        transitions=[
            Transition(before=b, after=a, claims=n)
            for (b, a), n in sorted(moves.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
    )
    return Comparison(
        shadow=shadow,
        totals=totals,
        before=_headline(figures(old_rows)),
        after=_headline(figures(new_rows)),
        by_field=_by_field(old_rows, new_rows),
        labels=_labels(old_rows, new_rows, labels) if labels else None,
        claims=claims,
    )


def compare_stores(
    shadow: str, production: Store, shadow_store: Store, labels: Mapping[str, Label] | None = None
) -> Comparison:
    """`compare` over every decision of production and of the shadow's store."""
    return compare(shadow, load_rows(production), load_rows(shadow_store), labels)
