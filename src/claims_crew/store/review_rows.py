"""A person's decision as the store writes it, inside the caller's write transaction: the human
audit entry that overrides the escalation's, and the review row it records (queue.py decides,
desk.py confirms a proposal). Both keep what the person's decision rests on: the clauses they
named, as re-read by the caller, and a covered decision's amount payable."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, insert, select

from claims_crew.models import Payable
from claims_crew.records import PersonClause
from claims_crew.store import audit
from claims_crew.store.audit_key import AuditKey
from claims_crew.store.clause_json import clauses_of, clauses_text
from claims_crew.store.report_facts import keep_facts
from claims_crew.store.tables import audit_log, reviews

if TYPE_CHECKING:
    from claims_crew.store.queue import Escalation


@dataclass(frozen=True)
class Review:
    id: int
    escalation_id: int
    claim_id: str
    reviewer: str
    decision: str
    reason: str
    decided_at: str
    audit_seq: int
    # A covered decision's amount payable (or why there is none); None for any other.
    payable: Payable | None = None
    # The clauses the decision rests on, as re-read when the person named them; () for none.
    clauses: tuple[PersonClause, ...] = ()


# Review's fields, in its order (letters.py reads a review with them too).
REVIEW_COLUMNS = (
    reviews.c.id,
    reviews.c.escalation_id,
    reviews.c.claim_id,
    reviews.c.reviewer,
    reviews.c.decision,
    reviews.c.reason,
    reviews.c.decided_at,
    reviews.c.audit_seq,
    reviews.c.payable,
    reviews.c.clauses,
)


def review_from_row(row: Sequence[Any]) -> Review:
    """A review as REVIEW_COLUMNS select it: its payable and clauses read back."""
    payable, clauses = row[8], row[9]
    return replace(
        Review(*row[:8]),
        payable=Payable.model_validate_json(payable) if payable else None,
        clauses=clauses_of(clauses),
    )


def human_entry(
    conn: Connection,
    key: AuditKey,
    escalation: Escalation,
    decided: tuple[str, str, str],
    now: str,
    rests_on: tuple[Sequence[PersonClause], Payable | None] = ((), None),
    **links: Any,
) -> int:
    """The person's audit entry for `decided` (reviewer, decision, reason), overriding the
    escalation's entry by number and hash, signed with `key` (with `links`: the proposal it
    confirms); returns its number. `rests_on` is what the decision rests on: the clauses named
    (their ids are its evidence, their words in force its quotes) and the amount payable."""
    reviewer, decision, reason = decided
    clauses, payable = rests_on
    overridden = conn.execute(
        select(audit_log.c.hash, audit_log.c.body).where(audit_log.c.seq == escalation.audit_seq)
    ).one()
    base = audit.carried_from(json.loads(overridden.body))
    if clauses:
        base["evidence"] = [c.clause_id for c in clauses]
    entry, _ = audit.append(
        conn,
        key,
        kind="human",
        claim_id=escalation.claim_id,
        **base,
        answer=decision,
        actor=f"human:{reviewer}",
        reason=reason,
        overrides=escalation.audit_seq,
        overrides_hash=overridden.hash,
        at=now,
        **rested_on(clauses, payable),
        **links,
    )
    return entry.seq


def rested_on(clauses: Sequence[PersonClause], payable: Payable | None) -> dict[str, Any]:
    """A person's entry's `clauses` (None where none was named) and `payable`."""
    return {"clauses": list(clauses) or None, "payable": payable}


def record_review(
    conn: Connection,
    escalation: Escalation,
    decided: tuple[str, str, str],
    now: str,
    seq: int,
    rests_on: tuple[Sequence[PersonClause], Payable | None] = ((), None),
) -> Review:
    """The review row of a person's decision (reviewer, decision, reason), recorded by audit
    entry `seq`, with the clauses it rests on and a covered decision's amount payable."""
    reviewer, decision, reason = decided
    clauses, payable = rests_on
    review = Review(
        id=0,  # the row's own, once inserted
        escalation_id=escalation.id,
        claim_id=escalation.claim_id,
        reviewer=reviewer,
        decision=decision,
        reason=reason,
        decided_at=now,
        audit_seq=seq,
    )
    values = {
        **asdict(review),
        "payable": payable.model_dump_json() if payable else None,
        "clauses": clauses_text(clauses),
    }
    del values["id"]
    new_id: int = conn.execute(
        insert(reviews).values(**values).returning(reviews.c.id)
    ).scalar_one()
    keep_facts(conn, escalation.claim_id)  # the report counts the review
    return replace(review, id=int(new_id), payable=payable, clauses=tuple(clauses))
