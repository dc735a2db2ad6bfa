"""The review desk's rows, written inside a caller's write transaction: reviewers' settings,
assignments, and four-eyes proposals, each change with its audit entry.

Plain functions that take the open connection (store.py says why): recording an escalation
assigns it in the decision's own transaction, and a person's decision checks authority and
four eyes in the transaction that records it, so no check is ever made on a state that has
changed by the time the write lands. The rules themselves are the desk's (desk/): the caller
hands them in (`Assign`, `Permit`, queue.py's `Judge`), and they are applied here to the rows
as this transaction reads them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy import Connection, func, select, update

from claims_crew.errors import NotFound, OutsideAuthority, StoreError
from claims_crew.records import ReviewerSettings
from claims_crew.settings.command import command
from claims_crew.store import audit
from claims_crew.store.audit_key import AuditKey
from claims_crew.store.sql import upsert
from claims_crew.store.tables import (
    assignments,
    audit_log,
    escalations,
    reviewers,
)


@dataclass(frozen=True)
class ReviewerRow:
    name: str
    settings: ReviewerSettings
    load: int  # open escalations assigned to them
    created_at: str


# Why the named reviewer, with the settings their row has now and the number of leads the desk
# has, may not make a change; None if they may (desk/authority.py's refusals).
Permit = Callable[[str, ReviewerSettings, int], str | None]


class Assign(Protocol):
    """Who an escalation of a line goes to among the reviewers as they stand, never one left
    out, with the sentence its entry gives; and, where nobody, why (desk/assignment.py's
    Assigner)."""

    def __call__(
        self, candidates: Sequence[ReviewerRow], line: str | None, leave_out: Collection[str], /
    ) -> tuple[str | None, str]: ...

    def unassigned(
        self, candidates: Sequence[ReviewerRow], line: str | None, leave_out: Collection[str], /
    ) -> str: ...


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
        raise NotFound(f"no reviewer named {name!r}; add one with: {command('reviewers add NAME')}")
    return settings_from(row)


def permitted(conn: Connection, who: str, permit: Permit) -> None:
    """Refuse (OutsideAuthority) what `permit` says registered reviewer `who` may not do, asked
    of their row and the desk's leads as they are in this transaction."""
    leads = conn.execute(
        select(func.count()).select_from(reviewers).where(reviewers.c.role == "lead")
    ).scalar_one()
    if why_not := permit(who, settings_of(conn, who), int(leads)):
        raise OutsideAuthority(why_not)


def write_settings(
    conn: Connection,
    key: AuditKey,
    now: str,
    name: str,
    settings: ReviewerSettings,
    actor: str,
    reason: str = "",
    permit: Permit | None = None,
) -> int:
    """Set a registered reviewer's settings, with a `reviewer` entry by `actor` (who made the
    change); returns its number. A person (`human:NAME`) is refused what `permit` (the desk's
    rule: desk.authority.desk_change_refusal) refuses them, in this transaction; without one,
    a person's change is refused."""
    if actor.startswith("human:"):
        if permit is None:
            raise StoreError("a person's change to the desk needs the desk's rule to judge it")
        permitted(conn, actor.removeprefix("human:"), permit)
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
        **audit.decides_nothing(),
        actor=actor,
        reason=reason or f"settings of reviewer {name}",
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
        # The claim and the versions it was decided on: every entry of a claim reads whole.
        claim_id=base["claim_id"],
        **audit.carried_from(base),
        **{**defaults, **fields},
        at=now,
    )
    return entry.seq, digest


def candidates(conn: Connection) -> list[ReviewerRow]:
    """Every reviewer by name, with the open escalations assigned to them now."""
    load = (
        select(assignments.c.reviewer, func.count().label("load"))
        .join(escalations, escalations.c.id == assignments.c.escalation_id)
        .where(escalations.c.state == "open", assignments.c.reviewer.is_not(None))
        .group_by(assignments.c.reviewer)
        .subquery()
    )
    rows = conn.execute(
        _SETTINGS.add_columns(reviewers.c.created_at, func.coalesce(load.c.load, 0).label("load"))
        .outerjoin(load, load.c.reviewer == reviewers.c.name)
        .order_by(reviewers.c.name)
    ).all()
    return [
        ReviewerRow(row.name, settings_from(row), int(row.load), row.created_at) for row in rows
    ]


def assign_in(
    conn: Connection,
    key: AuditKey,
    now: str,
    escalation: tuple[int, str, int],
    line: str | None,
    assign: Assign,
    leave_out: Collection[str] = (),
) -> str | None:
    """Assign the escalation (id, claim id, its entry's number) by the rule `assign`, never to
    anyone in `leave_out`, with an `assigned` entry; returns the reviewer, or None where nobody
    fits."""
    found = candidates(conn)
    name, reason = assign(found, line, leave_out)
    why = assign.unassigned(found, line, leave_out) if name is None else None
    return _assigned(conn, key, now, escalation, line, name, "desk", reason, why)


def _assigned(
    conn: Connection,
    key: AuditKey,
    now: str,
    escalation: tuple[int, str, int],
    line: str | None,
    name: str | None,
    actor: str,
    reason: str,
    why: str | None = None,
) -> str | None:
    """An `assigned` entry, and the assignment row it records."""
    entry_seq, _ = desk_entry(
        conn, key, now, escalation[2], kind="assigned", actor=actor, reason=reason, reviewer=name
    )
    _assignment_row(conn, now, escalation, line, name, entry_seq, why)
    return name


def assigned(
    conn: Connection,
    now: str,
    escalation: tuple[int, str, int],
    line: str | None,
    name: str | None,
    why: str | None = None,
) -> None:
    """The first assignment of an escalation, which its own escalated entry names; `why`
    nobody, where nobody was chosen."""
    _assignment_row(conn, now, escalation, line, name, escalation[2], why)


def _assignment_row(
    conn: Connection,
    now: str,
    escalation: tuple[int, str, int],
    line: str | None,
    name: str | None,
    seq: int,
    why: str | None = None,
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
            "why": why if name is None else None,
        },
        ["escalation_id"],
    )


def assign_waiting_in(
    conn: Connection, key: AuditKey, now: str, assign: Assign, because: str
) -> list[tuple[str, str]]:
    """Every open escalation the desk left unassigned (its assignment row names nobody; one
    opened before the desk kept assignments has no row, and stays a lead's to reassign), oldest
    first, given to whom the rule `assign` picks now (never one its escalation leaves out, an
    appeal's earlier reviewer), each with an `assigned` entry by the desk whose reason ends with
    `because`; returns (claim id, reviewer) for each assigned. One that still nobody fits is
    left as it was, with no entry."""
    waiting = conn.execute(
        select(
            escalations.c.id,
            escalations.c.claim_id,
            escalations.c.audit_seq,
            escalations.c.excluded_reviewers,
            assignments.c.line,
        )
        .join(assignments, assignments.c.escalation_id == escalations.c.id)
        .where(escalations.c.state == "open", assignments.c.reviewer.is_(None))
        .order_by(escalations.c.id)
    ).all()
    done: list[tuple[str, str]] = []
    for row in waiting:
        excluded = json.loads(row.excluded_reviewers) if row.excluded_reviewers else []
        # Loads are read again for each: the one just given counts for the next.
        name, reason = assign(candidates(conn), row.line, excluded)
        if name is not None:
            where = (row.id, row.claim_id, row.audit_seq)
            _assigned(conn, key, now, where, row.line, name, "desk", f"{reason}; {because}")
            done.append((row.claim_id, name))
    return done


def reading_confirmed_in(
    conn: Connection,
    key: AuditKey,
    now: str,
    endorsement: str,
    digest: str,
    lead: str,
    permit: Permit,
) -> tuple[int, str]:
    """A `reading_confirmed` entry by `lead`, refused where `permit` refuses them."""
    permitted(conn, lead, permit)
    entry, _ = audit.append(
        conn,
        key,
        kind="reading_confirmed",
        claim_id="",
        claim_sha256="",
        **audit.decides_nothing(),
        actor=f"human:{lead}",
        reason=f"confirmed the reading of endorsement {endorsement}",
        overrides=None,
        overrides_hash=None,
        at=now,
        endorsement=endorsement,
        reading_digest=digest,
    )
    return entry.seq, now


def reassign_in(
    conn: Connection,
    key: AuditKey,
    now: str,
    escalation: tuple[int, str, int],
    to: str,
    lead: str,
    reason: str,
    permit: Permit,
) -> None:
    """A lead gives the escalation to `to`, with an `assigned` entry naming the lead; refused
    where `permit` (desk.authority.reassign_refusal) refuses `lead`."""
    permitted(conn, lead, permit)
    settings_of(conn, to)  # refuses a name that is no reviewer
    line = conn.execute(
        select(assignments.c.line).where(assignments.c.escalation_id == escalation[0])
    ).scalar()
    _assigned(conn, key, now, escalation, line, to, f"human:{lead}", reason)
