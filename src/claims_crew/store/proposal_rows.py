"""Four-eyes proposals, written inside a caller's write transaction (desk.py says how they
are used): a decision proposed, and the conditional updates that confirm or return it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, NoReturn

from sqlalchemy import Connection, insert, select, update

from claims_crew.errors import AlreadyDecided, StoreError
from claims_crew.records import PersonClause
from claims_crew.store.audit_key import AuditKey
from claims_crew.store.clause_json import clauses_of, clauses_text
from claims_crew.store.desk_rows import desk_entry
from claims_crew.store.tables import audit_log, escalations, proposals


@dataclass(frozen=True)
class Proposal:
    """A decision that waits for a second reviewer to confirm or return it."""

    id: int
    escalation_id: int
    claim_id: str
    reviewer: str
    decision: str
    reason: str
    proposed_at: str
    audit_seq: int
    state: str
    closed_by: str | None
    closed_at: str | None
    closed_seq: int | None
    # The clauses the proposed decision rests on, as re-read when proposed; () for none. The
    # confirmation decides on them.
    clauses: tuple[PersonClause, ...] = ()


# A proposal is on the escalation it names only if it came after that escalation's own entry:
# a revalidation replaces an escalation, and on SQLite its new row may take the old row's id,
# while the proposals on the old one stay on record.
_CURRENT = (
    (escalations.c.id == proposals.c.escalation_id)
    & (escalations.c.claim_id == proposals.c.claim_id)
    & (proposals.c.audit_seq > escalations.c.audit_seq)
)

_PROPOSAL = select(
    proposals.c.id,
    proposals.c.escalation_id,
    proposals.c.claim_id,
    proposals.c.reviewer,
    proposals.c.decision,
    proposals.c.reason,
    proposals.c.proposed_at,
    proposals.c.audit_seq,
    proposals.c.state,
    proposals.c.closed_by,
    proposals.c.closed_at,
    proposals.c.closed_seq,
    proposals.c.clauses,
)


def _proposal(row: Sequence[Any]) -> Proposal:
    return replace(Proposal(*row[:-1]), clauses=clauses_of(row[-1]))


def open_proposal(conn: Connection, escalation_id: int) -> Proposal | None:
    row = conn.execute(
        _PROPOSAL.join(escalations, _CURRENT).where(
            proposals.c.escalation_id == escalation_id, proposals.c.state == "open"
        )
    ).first()
    return _proposal(row) if row is not None else None


def open_proposals(conn: Connection, claim_ids: Sequence[str]) -> list[Proposal]:
    rows = conn.execute(
        _PROPOSAL.join(escalations, _CURRENT).where(
            proposals.c.claim_id.in_(list(claim_ids)), proposals.c.state == "open"
        )
    ).all()
    return [_proposal(row) for row in rows]


def refuse_waiting(conn: Connection, escalation_id: int) -> None:
    """Refuse a decision on an escalation whose proposal waits for a second reviewer."""
    if (waiting := open_proposal(conn, escalation_id)) is not None:
        raise StoreError(
            f"{waiting.reviewer} proposed {waiting.decision}; a different reviewer confirms or "
            "returns it first"
        )


def latest_proposal(conn: Connection, escalation_id: int) -> Proposal | None:
    row = conn.execute(
        _PROPOSAL.join(escalations, _CURRENT)
        .where(proposals.c.escalation_id == escalation_id)
        .order_by(proposals.c.id.desc())
        .limit(1)
    ).first()
    return _proposal(row) if row is not None else None


def entry_hash_of(conn: Connection, seq: int) -> str:
    return str(conn.execute(select(audit_log.c.hash).where(audit_log.c.seq == seq)).scalar_one())


def move_version(conn: Connection, escalation_id: int, claim_id: str, version: int) -> None:
    """Count a change to an open escalation seen at `version`; refuse it if anyone changed
    or decided the escalation since."""
    moved = conn.execute(
        update(escalations)
        .where(
            escalations.c.id == escalation_id,
            escalations.c.version == version,
            escalations.c.state == "open",
        )
        .values(version=escalations.c.version + 1)
    ).rowcount
    if moved == 1:
        return
    refuse_moved(
        conn,
        escalation_id,
        claim_id,
        f"the escalation of {claim_id} changed since you saw it; reload and retry",
    )


def refuse_moved(conn: Connection, escalation_id: int, claim_id: str, changed: str) -> NoReturn:
    """After a conditional update of an escalation touched no row: AlreadyDecided, naming who
    decided, when it is decided; else StoreError(`changed`), as its version moved."""
    now_is = conn.execute(
        select(
            escalations.c.state,
            escalations.c.decided_by,
            escalations.c.decided_at,
            escalations.c.decision,
        ).where(escalations.c.id == escalation_id)
    ).one()
    if now_is.state != "open":
        raise AlreadyDecided(claim_id, now_is.decided_by, now_is.decided_at, now_is.decision)
    raise StoreError(changed)


def propose_in(
    conn: Connection,
    key: AuditKey,
    now: str,
    escalation: tuple[int, str, int, int],
    decided: tuple[str, str, str],
    clauses: Sequence[PersonClause] = (),
) -> Proposal:
    """A decision (reviewer, decision, reason) proposed on the escalation (id, claim id, entry
    number, version seen), resting on `clauses`, with its `proposed` entry naming them."""
    escalation_id, claim_id, seq, version = escalation
    reviewer, decision, reason = decided
    move_version(conn, escalation_id, claim_id, version)
    entry_seq, _ = desk_entry(
        conn,
        key,
        now,
        seq,
        kind="proposed",
        actor=f"human:{reviewer}",
        answer=decision,
        reason=reason,
        clauses=list(clauses) or None,
    )
    proposal = Proposal(
        id=0,  # the row's own, once inserted
        escalation_id=escalation_id,
        claim_id=claim_id,
        reviewer=reviewer,
        decision=decision,
        reason=reason,
        proposed_at=now,
        audit_seq=entry_seq,
        state="open",
        closed_by=None,
        closed_at=None,
        closed_seq=None,
        clauses=tuple(clauses),
    )
    values = {**asdict(proposal), "clauses": clauses_text(clauses)}
    del values["id"]
    new_id: int = conn.execute(
        insert(proposals).values(**values).returning(proposals.c.id)
    ).scalar_one()
    return replace(proposal, id=int(new_id))


def close_proposal(
    conn: Connection, proposal: Proposal, state: str, reviewer: str, now: str
) -> None:
    """Mark an open proposal confirmed or returned, only if it is still open: of two reviewers
    racing to close it, the second finds it closed and is refused, saying by whom."""
    closed = conn.execute(
        update(proposals)
        .where(proposals.c.id == proposal.id, proposals.c.state == "open")
        .values(state=state, closed_by=reviewer, closed_at=now)
    ).rowcount
    if closed == 1:
        return
    now_is = conn.execute(
        select(proposals.c.state, proposals.c.closed_by).where(proposals.c.id == proposal.id)
    ).one()
    raise StoreError(
        f"the proposal on {proposal.claim_id} was already {now_is.state} by {now_is.closed_by}"
    )


def proposal_closed_by(conn: Connection, proposal: Proposal, seq: int) -> None:
    """The entry that confirmed or returned the proposal."""
    conn.execute(update(proposals).where(proposals.c.id == proposal.id).values(closed_seq=seq))
