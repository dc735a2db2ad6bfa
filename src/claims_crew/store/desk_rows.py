"""The review desk's rows, written inside a caller's write transaction: reviewers' settings,
assignments, and four-eyes proposals, each change with its audit entry.

Plain functions that take the open connection (store.py says why): recording an escalation
assigns it in the decision's own transaction, and a person's decision checks authority and
four eyes in the transaction that records it, so no check is ever made on a state that has
changed by the time the write lands.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, replace
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from claims_crew.desk import Candidate, ReviewerSettings, amount_at_stake, choose, refusal
from claims_crew.desk.assignment import Step, why
from claims_crew.desk.rules import Assignment, DeskRules
from claims_crew.errors import AlreadyDecided, NotFound, OutsideAuthority, StoreError
from claims_crew.store import audit
from claims_crew.store.audit_key import AuditKey
from claims_crew.store.sql import upsert
from claims_crew.store.tables import (
    assignments,
    audit_log,
    escalations,
    proposals,
    reviewers,
)

__all__ = ["DEFAULT_STEPS", "Step"]

DEFAULT_STEPS: tuple[Step, ...] = tuple(Assignment().steps)

# What a claim's desk entry copies from the claim's escalated entry: the claim and the
# versions it was decided on, so every entry of a claim reads whole on its own.
_CLAIM_FIELDS = (
    "claim_id",
    "claim_sha256",
    "policy_sha256",
    "policy_corrections_sha256",
    "config_sha256",
    "models",
    "outcome",
    "rule",
    "reason_codes",
    "evidence",
)


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
)


def _proposal(row: Sequence[Any]) -> Proposal:
    return Proposal(*row)


def settings_from(row: Any) -> ReviewerSettings:
    """A reviewers row's settings."""
    return ReviewerSettings(
        role=row.role,
        lines=json.loads(row.lines) if row.lines is not None else None,
        max_amount=Decimal(row.max_amount) if row.max_amount is not None else None,
        may_deny=bool(row.may_deny),
    )


_SETTINGS = select(
    reviewers.c.name,
    reviewers.c.role,
    reviewers.c.lines,
    reviewers.c.max_amount,
    reviewers.c.may_deny,
)


def settings_of(conn: Connection, name: str) -> ReviewerSettings:
    """A reviewer's settings; NotFound for no such reviewer."""
    row = conn.execute(_SETTINGS.where(reviewers.c.name == name)).first()
    if row is None:
        raise NotFound(f"no reviewer named {name!r}; add one with: claims-crew reviewers add NAME")
    return settings_from(row)


def write_settings(
    conn: Connection, key: AuditKey, now: str, name: str, settings: ReviewerSettings, actor: str
) -> int:
    """Set a registered reviewer's settings, with a `reviewer` entry; returns its number."""
    conn.execute(
        update(reviewers)
        .where(reviewers.c.name == name)
        .values(
            role=settings.role,
            lines=json.dumps(settings.lines) if settings.lines is not None else None,
            max_amount=str(settings.max_amount) if settings.max_amount is not None else None,
            may_deny=int(settings.may_deny),
        )
    )
    entry, _ = audit.append(
        conn,
        key,
        kind="reviewer",
        claim_id="",
        claim_sha256="",
        policy_sha256=None,
        config_sha256=None,
        models={},
        outcome=None,
        answer=None,
        rule=None,
        reason_codes=[],
        evidence=[],
        actor=actor,
        reason=f"settings of reviewer {name}",
        overrides=None,
        overrides_hash=None,
        at=now,
        reviewer=name,
        settings=settings.model_dump(mode="json"),
    )
    return entry.seq


def desk_entry(
    conn: Connection, key: AuditKey, now: str, escalation_seq: int, **fields: Any
) -> tuple[int, str]:
    """An entry of a claim's desk (assigned, proposed, returned, or a confirming human one),
    standing on the claim's escalated entry; returns its number and hash."""
    base = json.loads(
        conn.execute(select(audit_log.c.body).where(audit_log.c.seq == escalation_seq)).scalar_one()
    )
    defaults: dict[str, Any] = {"answer": None, "overrides": None, "overrides_hash": None}
    entry, digest = audit.append(
        conn,
        key,
        **{name: base.get(name) for name in _CLAIM_FIELDS},
        **{**defaults, **fields},
        at=now,
    )
    return entry.seq, digest


def candidates(conn: Connection) -> list[Candidate]:
    """Every reviewer, with the open escalations assigned to them now."""
    load = (
        select(assignments.c.reviewer, func.count().label("load"))
        .join(escalations, escalations.c.id == assignments.c.escalation_id)
        .where(escalations.c.state == "open", assignments.c.reviewer.is_not(None))
        .group_by(assignments.c.reviewer)
        .subquery()
    )
    rows = conn.execute(
        _SETTINGS.add_columns(func.coalesce(load.c.load, 0).label("load")).outerjoin(
            load, load.c.reviewer == reviewers.c.name
        )
    ).all()
    return [Candidate(row.name, settings_from(row), int(row.load)) for row in rows]


def assign_in(
    conn: Connection,
    key: AuditKey,
    now: str,
    escalation: tuple[int, str, int],
    line: str | None,
    steps: Sequence[Step],
    leave_out: Collection[str] = (),
) -> str | None:
    """Assign the escalation (id, claim id, its entry's number) by the rule, never to anyone in
    `leave_out`, with an `assigned` entry; returns the reviewer, or None where nobody fits."""
    escalation_id, claim_id, seq = escalation
    chosen = choose(candidates(conn), line, steps, leave_out)
    name = chosen.name if chosen is not None else None
    reason = why(chosen, line, steps)
    if leave_out:
        reason += f"; not {', '.join(sorted(leave_out))}"
    return _assigned(conn, key, now, (escalation_id, claim_id, seq), line, name, "desk", reason)


def _assigned(
    conn: Connection,
    key: AuditKey,
    now: str,
    escalation: tuple[int, str, int],
    line: str | None,
    name: str | None,
    actor: str,
    reason: str,
) -> str | None:
    """An `assigned` entry, and the assignment row it records."""
    entry_seq, _ = desk_entry(
        conn, key, now, escalation[2], kind="assigned", actor=actor, reason=reason, reviewer=name
    )
    _assignment_row(conn, now, escalation, line, name, entry_seq)
    return name


def assigned(
    conn: Connection,
    now: str,
    escalation: tuple[int, str, int],
    line: str | None,
    chosen: Candidate | None,
) -> None:
    """The first assignment of an escalation, which its own escalated entry names."""
    name = chosen.name if chosen is not None else None
    _assignment_row(conn, now, escalation, line, name, escalation[2])


def _assignment_row(
    conn: Connection,
    now: str,
    escalation: tuple[int, str, int],
    line: str | None,
    name: str | None,
    seq: int,
) -> None:
    upsert(
        conn,
        assignments,
        {
            "escalation_id": escalation[0],
            "claim_id": escalation[1],
            "line": line,
            "reviewer": name,
            "assigned_at": now,
            "audit_seq": seq,
        },
        ["escalation_id"],
    )


def reassign_in(
    conn: Connection,
    key: AuditKey,
    now: str,
    escalation: tuple[int, str, int],
    to: str,
    lead: str,
    reason: str,
) -> None:
    """A lead gives the escalation to `to`, with an `assigned` entry naming the lead."""
    if settings_of(conn, lead).role != "lead":
        raise OutsideAuthority(f"{lead} is not a lead; only a lead may reassign")
    settings_of(conn, to)  # refuses a name that is no reviewer
    line = conn.execute(
        select(assignments.c.line).where(assignments.c.escalation_id == escalation[0])
    ).scalar()
    _assigned(conn, key, now, escalation, line, to, f"human:{lead}", reason)


def open_proposal(conn: Connection, escalation_id: int) -> Proposal | None:
    row = conn.execute(
        _PROPOSAL.where(proposals.c.escalation_id == escalation_id, proposals.c.state == "open")
    ).first()
    return _proposal(row) if row is not None else None


def open_proposals(conn: Connection, claim_ids: Sequence[str]) -> list[Proposal]:
    rows = conn.execute(
        _PROPOSAL.where(proposals.c.claim_id.in_(list(claim_ids)), proposals.c.state == "open")
    ).all()
    return [_proposal(row) for row in rows]


def judge(
    conn: Connection,
    reviewer: str,
    decision: str,
    amount: str | None,
    escalation_id: int,
    rules: DeskRules,
) -> bool:
    """Refuse a decision beyond `reviewer`'s authority, or on an escalation whose proposal
    waits; True when it needs a second reviewer (a proposal), False when it decides."""
    at_stake = amount_at_stake(amount)
    if why_not := refusal(reviewer, settings_of(conn, reviewer), decision, at_stake):
        raise OutsideAuthority(why_not)
    if (waiting := open_proposal(conn, escalation_id)) is not None:
        raise StoreError(
            f"{waiting.reviewer} proposed {waiting.decision}; a different reviewer confirms or "
            "returns it first"
        )
    return rules.four_eyes.needed(decision, at_stake)


def judge_confirmer(conn: Connection, reviewer: str, decision: str, amount: str | None) -> None:
    """Refuse a confirmation beyond the confirming reviewer's own authority."""
    if why_not := refusal(reviewer, settings_of(conn, reviewer), decision, amount_at_stake(amount)):
        raise OutsideAuthority(why_not)


def latest_proposal(conn: Connection, escalation_id: int) -> Proposal | None:
    row = conn.execute(
        _PROPOSAL.where(proposals.c.escalation_id == escalation_id)
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
    raise StoreError(f"the escalation of {claim_id} changed since you saw it; reload and retry")


def propose_in(
    conn: Connection,
    key: AuditKey,
    now: str,
    escalation: tuple[int, str, int, int],
    reviewer: str,
    decision: str,
    reason: str,
) -> Proposal:
    """A decision proposed on the escalation (id, claim id, entry number, version seen), with
    its `proposed` entry."""
    escalation_id, claim_id, seq, version = escalation
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
    )
    values = asdict(proposal)
    del values["id"]
    proposal_id: int = conn.execute(
        insert(proposals).values(**values).returning(proposals.c.id)
    ).scalar_one()
    return replace(proposal, id=int(proposal_id))


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
