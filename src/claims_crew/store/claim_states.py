"""Where each claim stands, for the service API: one state per claim, read in one query.

A claim's state (vocabulary.ClaimState):
- failed: parked after its reviews failed too often (failures.py), until a person re-queues it;
  or kept with no decision and no longer queued (its review never finished);
- under_review: a worker holds its queue item, or a process holds its claim lease (an appeal
  being decided, a run's review);
- queued: its file waits in the queue and nobody holds it;
- escalated: its escalation is open (or, recorded without one, its outcome is an open one);
- decided: any other claim with a decision: automatic, adjudicated, or a person's.
The queue comes first: a claim queued again after a decision (a changed file) is what happens
to it next. Every claim whose file the store keeps has a state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import ColumnElement, Connection, and_, case, func, literal, or_, select, tuple_

from claims_crew.store import tables as t
from claims_crew.store.base import StoreBase
from claims_crew.store.outage import rides_out
from claims_crew.vocabulary import OPEN_OUTCOMES, ClaimState


@dataclass(frozen=True)
class ClaimStatus:
    """A claim's state now; `reason` says why a failed one failed."""

    claim_id: str
    state: ClaimState
    submitted_at: str  # when its first file was kept
    sha256: str  # the file version queued or decided: the latest the store acts on
    reason: str | None = None
    decided_by: str | None = None  # the decision in force's actor: human:NAME for a person's
    decided_at: str | None = None
    appealed: bool = False  # an appeal's entry is in its trail

    @property
    def standing(self) -> str:
        """Where it stands, in the one phrase every view leads with."""
        return where_it_stands(self.state, self.decided_by, self.decided_at, self.appealed)


def where_it_stands(
    state: ClaimState,
    decided_by: str | None = None,
    decided_at: str | None = None,
    appealed: bool = False,
) -> str:
    """The one phrase for where a claim stands, as every view leads with it: queued, under
    review, escalated, appealed (escalated again by an appeal), decided by the rules, by the
    adjudicator, or by a person (who, when), failed. `decided_by` is the decision in force's
    actor (`human:NAME` for a person's); the automatic outcome is history, not this."""
    if state == "under_review":
        return "under review"
    if state == "escalated":
        return "appealed" if appealed else "escalated"
    if state != "decided":
        return state
    if decided_by is not None and decided_by.startswith("human:"):
        return f"decided by a person ({decided_by.removeprefix('human:')}, {decided_at})"
    if decided_by == "adjudicator":
        return "decided by the adjudicator"
    return "decided by the rules"


def state_case(now: str) -> ColumnElement[str]:
    """A claim's state (the module docstring) as SQL, over its rows joined by claim id."""
    w, d, e, lease = t.work_items.c, t.decisions.c, t.escalations.c, t.leases.c
    held = and_(w.state == "pending", w.taken_by.is_not(None), w.expires_at > now)
    open_ = or_(e.state == "open", and_(e.id.is_(None), d.outcome.in_(OPEN_OUTCOMES)))
    return case(
        (w.state == "failed", "failed"),
        (or_(held, lease.expires_at > now), "under_review"),
        (w.state == "pending", "queued"),
        (d.claim_id.is_(None), "failed"),
        (open_, "escalated"),
        else_="decided",
    )


def _appealed(conn: Connection, claim_ids: list[str]) -> set[str]:
    """Of `claim_ids`, those with an appeal's entry in their trail: one read for a page."""
    if not claim_ids:
        return set()
    a = t.audit_log.c
    rows = conn.execute(select(a.claim_id, a.body).where(a.claim_id.in_(claim_ids)))
    return {r.claim_id for r in rows if json.loads(r.body).get("appeal") is not None}


def _reason(state: str, failure_reasons: str | None) -> str | None:
    if state != "failed":
        return None
    reasons = json.loads(failure_reasons or "[]")
    return str(reasons[-1]) if reasons else "its review did not finish; nothing was decided"


class ClaimStates(StoreBase):
    """Each claim's state, one at a time or a page at a time."""

    @rides_out
    def claim_states(
        self,
        state: ClaimState | None = None,
        since: str | None = None,
        after: tuple[str, str] | None = None,
        limit: int = 100,
        claim_id: str | None = None,
        claim_ids: list[str] | None = None,
    ) -> list[ClaimStatus]:
        """Claims in submission order (first kept, then claim id): only those in `state`,
        submitted at or after `since`, past `after` (the (submitted_at, claim_id) of the last
        one of the page before), at most `limit`; `claim_id`: that claim alone; `claim_ids`:
        those claims alone."""
        c, w, d, e, lease = (
            t.claim_files.c,
            t.work_items.c,
            t.decisions.c,
            t.escalations.c,
            t.leases.c,
        )
        first = (
            select(c.claim_id, func.min(c.seen_at).label("submitted_at"))
            .group_by(c.claim_id)
            .subquery()
        )
        with self.read() as conn:
            now = self.now()
            rows = (
                select(
                    first.c.claim_id,
                    first.c.submitted_at,
                    state_case(now).label("state"),
                    func.coalesce(w.sha256, d.claim_sha256, "").label("sha256"),
                    w.failure_reasons,
                    # A person's decision, where one closed the escalation, else the rules'.
                    case(
                        (e.state == "decided", literal("human:").concat(e.decided_by)),
                        else_=d.decided_by,
                    ).label("decided_by"),
                    case((e.state == "decided", e.decided_at), else_=d.decided_at).label(
                        "decided_at"
                    ),
                )
                .select_from(
                    first.outerjoin(t.work_items, w.claim_id == first.c.claim_id)
                    .outerjoin(t.decisions, d.claim_id == first.c.claim_id)
                    .outerjoin(t.escalations, e.claim_id == first.c.claim_id)
                    .outerjoin(t.leases, lease.claim_id == first.c.claim_id)
                )
                .subquery()
            )
            query = select(rows).order_by(rows.c.submitted_at, rows.c.claim_id).limit(limit)
            if claim_id is not None:
                query = query.where(rows.c.claim_id == claim_id)
            if claim_ids is not None:
                query = query.where(rows.c.claim_id.in_(claim_ids))
            if state is not None:
                query = query.where(rows.c.state == state)
            if since is not None:
                query = query.where(rows.c.submitted_at >= since)
            if after is not None:
                query = query.where(tuple_(rows.c.submitted_at, rows.c.claim_id) > after)
            found: list[Any] = list(conn.execute(query))
            appealed = _appealed(conn, [r.claim_id for r in found if r.state == "escalated"])
        return [
            ClaimStatus(
                r.claim_id,
                cast(ClaimState, r.state),
                r.submitted_at,
                r.sha256,
                _reason(r.state, r.failure_reasons),
                r.decided_by,
                r.decided_at,
                r.claim_id in appealed,
            )
            for r in found
        ]

    def claim_state(self, claim_id: str) -> ClaimStatus | None:
        """The claim's state now; None when the store keeps no file of it."""
        found = self.claim_states(claim_id=claim_id, limit=1)
        return found[0] if found else None

    def entry_hash_of(self, seq: int) -> str | None:
        """The hash of audit entry `seq` as the chain keeps it; None when there is none."""
        with self.read() as conn:
            found: str | None = conn.execute(
                select(t.audit_log.c.hash).where(t.audit_log.c.seq == seq)
            ).scalar()
        return found
