"""What /readyz and /metrics read that no other topic already counts: the schema's revision,
and how many claims are in each state.

A claim's state, one per claim:
- queued: its file waits in the queue (pending) and no worker holds it;
- under_review: a worker holds it (pending, its lease running);
- failed: parked after its reviews failed too often (failures.py), until a person re-queues it;
- escalated: decided by no one yet: its escalation is open (or, recorded without one, its
  outcome is an open one);
- decided: any other claim with a decision: automatic, adjudicated, or a person's.
A claim queued or parked again after a decision (a changed file, an appeal) counts by its
queue state, which is what happens to it next.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import and_, case, func, select
from sqlalchemy.exc import SQLAlchemyError

from claims_crew.errors import DatabaseUnavailable
from claims_crew.store import tables as t
from claims_crew.store.base import StoreBase
from claims_crew.store.schema import current_revision
from claims_crew.vocabulary import CLAIM_STATES, OPEN_OUTCOMES


class MetricCounts(StoreBase):
    """The few counts the operations endpoints need beyond the other topics' reads."""

    def schema_revision(self) -> str | None:
        """The database's migration revision now (None: never migrated). Asked once, not
        ridden out: a readiness probe wants the answer now. DatabaseUnavailable when the
        database does not answer."""
        try:
            with self.engine.connect() as conn:
                return current_revision(conn)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"{self.where} does not answer: {exc}") from exc

    def claim_state_counts(self) -> dict[str, int]:
        """How many claims are in each state (vocabulary.CLAIM_STATES; the module docstring
        defines each), every state present."""
        w, d, e = t.work_items.c, t.decisions.c, t.escalations.c
        counts: dict[str, int] = dict.fromkeys(CLAIM_STATES, 0)
        with self.read() as conn:
            now = self.now()
            held = and_(w.taken_by.is_not(None), w.expires_at > now)
            queue_state = case(
                (w.state == "failed", "failed"),
                (held, "under_review"),
                else_="queued",
            )
            in_queue = w.state.in_(("pending", "failed"))
            for state, n in conn.execute(
                select(queue_state, func.count()).where(in_queue).group_by(queue_state)
            ):
                counts[str(state)] += cast(int, n)
            open_ = (e.state == "open") | (e.id.is_(None) & d.outcome.in_(OPEN_OUTCOMES))
            decision_state = case((open_, "escalated"), else_="decided")
            queued = select(w.claim_id).where(in_queue)
            rows = conn.execute(
                select(decision_state, func.count())
                .select_from(t.decisions.outerjoin(t.escalations, e.claim_id == d.claim_id))
                .where(d.claim_id.not_in(queued))
                .group_by(decision_state)
            )
            for state, n in rows:
                counts[str(state)] += cast(int, n)
        return counts
