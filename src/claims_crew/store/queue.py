"""The review queue: escalations waiting for a person, their decisions, and every decided claim.

A person's decision never edits the automatic one. It closes the escalation (checked against the
version the reviewer saw, so the first of two reviewers wins and the second learns who decided),
adds a review row, and appends a human audit entry that names the entry it overrides.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import ColumnElement, Connection, func, select, update

from claims_crew.errors import NotFound, StoreError
from claims_crew.models import Payable
from claims_crew.records import PersonClause, ReviewerSettings
from claims_crew.records.resolution import Resolution
from claims_crew.store import proposal_rows
from claims_crew.store.base import StoreBase
from claims_crew.store.desk_rows import settings_of
from claims_crew.store.metric_totals import count_review
from claims_crew.store.proposal_rows import Proposal, refuse_moved
from claims_crew.store.review_rows import (
    REVIEW_COLUMNS,
    Review,
    human_entry,
    record_review,
    review_from_row,
)
from claims_crew.store.tables import (
    assignments,
    decisions,
    escalations,
    resolutions,
    reviews,
)
from claims_crew.vocabulary import HUMAN_DECISIONS


@dataclass(frozen=True)
class Escalation:
    id: int
    claim_id: str
    amount: str | None
    currency: str | None
    reason_codes: list[str]
    question: str | None
    opened_at: str
    state: str
    version: int
    decided_by: str | None
    decided_at: str | None
    decision: str | None
    audit_seq: int
    # The desk's clock (desk/clocks.py), and who may not decide it (an appeal's).
    jurisdiction: str | None = None
    acknowledge_by: str | None = None
    decide_by: str | None = None
    excluded_reviewers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decision:
    """A claim's automatic decision, with the resolution behind it and any human review."""

    claim_id: str
    claim_sha256: str
    outcome: str
    answer: str | None
    decided_by: str
    decided_at: str
    resolution: Resolution
    review: Review | None


# Escalation's fields, in its order.
_ESCALATION = select(
    escalations.c.id,
    escalations.c.claim_id,
    escalations.c.amount,
    escalations.c.currency,
    escalations.c.reason_codes,
    escalations.c.question,
    escalations.c.opened_at,
    escalations.c.state,
    escalations.c.version,
    escalations.c.decided_by,
    escalations.c.decided_at,
    escalations.c.decision,
    escalations.c.audit_seq,
    escalations.c.jurisdiction,
    escalations.c.acknowledge_by,
    escalations.c.decide_by,
    escalations.c.excluded_reviewers,
)


def _escalation(row: Sequence[Any]) -> Escalation:
    values = list(row)
    values[4] = json.loads(values[4])
    values[-1] = tuple(json.loads(values[-1])) if values[-1] else ()
    return Escalation(*values)


def _open(assigned_to: str | None, overdue_before: str | None) -> list[ColumnElement[bool]]:
    """Open escalations; with `assigned_to`, only those assigned to that reviewer; with
    `overdue_before` (an ISO date), those whose last day to decide came before it."""
    where = [escalations.c.state == "open"]
    if assigned_to is not None:
        mine = select(assignments.c.escalation_id).where(assignments.c.reviewer == assigned_to)
        where.append(escalations.c.id.in_(mine))
    if overdue_before is not None:
        where.append(escalations.c.decide_by < overdue_before)
    return where


class Judge(Protocol):
    """The desk's rules on a person's decision (desk/rules.py's DeskRules), asked of the
    reviewer's settings as they stand in the transaction that records it: refuse it by
    raising, or say whether it needs a second reviewer."""

    def judge(
        self,
        name: str,
        settings: ReviewerSettings,
        decision: str,
        escalation: Escalation,
        payable: Payable | None,
    ) -> bool: ...


def escalation_in(conn: Connection, ref: str) -> Escalation:
    """An escalation by claim id, or by its own number, read in the caller's transaction."""
    row = conn.execute(_ESCALATION.where(escalations.c.claim_id == ref)).first()
    if row is None and ref.isdigit():
        row = conn.execute(_ESCALATION.where(escalations.c.id == int(ref))).first()
    if row is None:
        raise NotFound(f"no escalation for {ref!r}")
    return _escalation(row)


def close_escalation(
    conn: Connection, escalation: Escalation, version: int, reviewer: str, decision: str, now: str
) -> None:
    """Mark the escalation decided if it is still open at `version`; else say who decided."""
    updated = conn.execute(
        update(escalations)
        .where(
            escalations.c.id == escalation.id,
            escalations.c.version == version,
            escalations.c.state == "open",
        )
        .values(
            state="decided",
            version=escalations.c.version + 1,
            decided_by=reviewer,
            decided_at=now,
            decision=decision,
        )
    ).rowcount
    if updated == 1:
        count_review(conn, escalation.opened_at, now)
        return
    refuse_moved(
        conn,
        escalation.id,
        escalation.claim_id,
        f"escalation {escalation.id} changed; reload and retry",
    )


class Queue(StoreBase):
    """Escalations, the human decisions on them, and the decided claims."""

    def open_escalations(
        self,
        limit: int = 50,
        offset: int = 0,
        assigned_to: str | None = None,
        overdue_before: str | None = None,
    ) -> list[Escalation]:
        """Open escalations, the nearest deadline to decide first (those without a clock
        last), then oldest first; only those assigned to `assigned_to`, if named; with
        `overdue_before` (an ISO date), only those due before."""
        with self.read() as conn:
            rows = conn.execute(
                _ESCALATION.where(*_open(assigned_to, overdue_before))
                .order_by(
                    escalations.c.decide_by.asc().nulls_last(),
                    escalations.c.opened_at,
                    escalations.c.id,
                )
                .limit(limit)
                .offset(offset)
            ).all()
        return [_escalation(row) for row in rows]

    def open_count(self, assigned_to: str | None = None, overdue_before: str | None = None) -> int:
        with self.read() as conn:
            count = conn.execute(
                select(func.count())
                .select_from(escalations)
                .where(*_open(assigned_to, overdue_before))
            ).scalar_one()
        return int(count)

    def escalation(self, ref: str) -> Escalation:
        """An escalation by claim id, or by its own number."""
        with self.read() as conn:
            return escalation_in(conn, ref)

    def decide(
        self,
        ref: str,
        decision: str,
        reason: str,
        reviewer: str,
        expected_version: int | None = None,
        payable: Payable | None = None,
        *,
        rules: Judge,
        clauses: Sequence[PersonClause] = (),
    ) -> Review | Proposal:
        """Record a person's decision on an open escalation, as a new audit entry linked to the
        escalation's. With `expected_version` (what the reviewer saw), a decision made since
        is refused: the first reviewer wins and the second learns who decided.

        A decision `rules` (the desk's: DeskRules) refuse is not recorded (OutsideAuthority:
        beyond the reviewer's authority); one they say needs four eyes is recorded as a
        proposal instead, for a different reviewer to confirm (desk.py)."""
        if decision not in HUMAN_DECISIONS:
            raise StoreError(f"decision must be one of {', '.join(HUMAN_DECISIONS)}")
        if not reason.strip():
            raise StoreError("a reason is required")
        escalation = self.escalation(ref)
        version = escalation.version if expected_version is None else expected_version
        with self.write() as conn:
            settings = settings_of(conn, reviewer)
            needs_second = rules.judge(reviewer, settings, decision, escalation, payable)
            proposal_rows.refuse_waiting(conn, escalation.id)
            now = self.now()
            key = self.audit_key()
            said = reason.strip()
            decided = (reviewer, decision, said)
            if needs_second:
                seen = (escalation.id, escalation.claim_id, escalation.audit_seq, version)
                return proposal_rows.propose_in(conn, key, now, seen, decided, clauses)
            close_escalation(conn, escalation, version, reviewer, decision, now)
            rests_on = (clauses, payable)
            seq = human_entry(conn, key, escalation, decided, now, rests_on)
            return record_review(conn, escalation, decided, now, seq, rests_on)

    def reviews(self, claim_id: str | None = None) -> list[Review]:
        query = select(*REVIEW_COLUMNS).order_by(reviews.c.id)
        if claim_id is not None:
            query = query.where(reviews.c.claim_id == claim_id)
        with self.read() as conn:
            rows: Sequence[tuple[Any, ...]] = conn.execute(query).all()
        return [review_from_row(row) for row in rows]

    def decisions(self) -> list[Decision]:
        """Every decided claim in claim-id order, with its resolution and any human review."""
        with self.read() as conn:
            rows = conn.execute(
                select(
                    decisions.c.claim_id,
                    decisions.c.claim_sha256,
                    decisions.c.outcome,
                    decisions.c.answer,
                    decisions.c.decided_by,
                    decisions.c.decided_at,
                    resolutions.c.body,
                    *REVIEW_COLUMNS,
                )
                .join(resolutions, resolutions.c.id == decisions.c.resolution_id)
                .outerjoin(reviews, reviews.c.claim_id == decisions.c.claim_id)
                .order_by(decisions.c.claim_id, reviews.c.id)
            ).all()
        return [
            Decision(
                claim_id=row[0],
                claim_sha256=row[1],
                outcome=row[2],
                answer=row[3],
                decided_by=row[4],
                decided_at=row[5],
                resolution=Resolution.model_validate_json(row[6]),
                review=review_from_row(row[7:]) if row[7] is not None else None,
            )
            for row in rows
        ]
