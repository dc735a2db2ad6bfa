"""One decided claim, reduced to a `ClaimRow`: what the report's metrics and the evaluation read.

Two loaders make the same row. `load_rows` takes every decided claim from the store's one
read-only pass (`Store.decided_claims`); `row_from` builds it from a `Decision` and its
`ClaimRecord` for callers that hold objects. Both hand JSON-shaped parts to `build_row`.

A fact field is null when intake's parsed facts leave it null; it is disputed when intake
contradicts the claim file (date_of_loss, amount_claimed, as the resolver compares them) or the
resolver named it in `missing_facts`; it is unverified when intake stated it but the resolver
found its source does not bear it out (Resolution.facts). Claims whose intake did not parse have
none of these: they are parse errors.

A row also keeps what the decided attempt cost and took: each task's tokens and calls, the model
of each agent (for the price table), each stage's seconds (crew, resolver, adjudicator), and a
person's wait, from the escalation's opening to the review that decided it.

And what became of the one targeted question intake may have been asked about a conflict's open
facts (Resolution.targeted): `settled` when a fact it quoted checked out and the conflict rule
no longer fired, `verified` when one checked out but facts stayed open, `unverified` when none
did (a null, a quote not in the claim, an unreadable answer). And whether a debate round was
held before the adjudicator (Resolution.debate): `changed` when a side revised its answer,
`unchanged` when neither did; its calls and tokens are those of the two rebuttal tasks.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from claims_crew.records.claim_row import (
    ClaimRow,
    SideRow,
    TaskTokens,
    build_row,
)
from claims_crew.vocabulary import stamp

if TYPE_CHECKING:
    from claims_crew.models import ClaimFile
    from claims_crew.records import ClaimRecord
    from claims_crew.store import Decision, Escalation, Store

__all__ = ["ClaimRow", "SideRow", "TaskTokens", "build_row", "load_rows", "row_from"]


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
        tokens_by_task={t: u.model_dump() for t, u in record.tokens_by_task.items()}
        if record
        else None,
        models=record.models if record else None,
        stages={s: (stamp(t.started_at), stamp(t.finished_at)) for s, t in record.stages.items()}
        if record
        else None,
        opened_at=escalation.opened_at if escalation else None,
        reviewed_at=decision.review.decided_at if decision.review else None,
    )


def load_rows(store: Store, since: date | None = None) -> list[ClaimRow]:
    """Every decided claim (on or after `since`, UTC) in one read-only pass over the store."""
    # Imported here, as the store is only under TYPE_CHECKING above: a row made from a decision
    # (row_from) needs no store.
    from claims_crew.store.report_facts import claim_row

    return [claim_row(c) for c in store.decided_claims(since)]
