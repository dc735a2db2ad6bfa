"""What /readyz and /metrics read: the database's migration revision, and the figures of a
scrape, read in one snapshot at a cost that does not grow with the store.

No figure reads every claim. Claims, decisions by outcome and rule, model usage, reviewed
escalations and webhook deliveries made are the totals kept as the store writes
(metric_totals.py); open and overdue escalations, the queue's pending items and the deliveries
pending or failed are counts over their indexes. Claims by state are counted, not listed:
every claim the queue or a lease does not hold is failed (no decision), escalated or decided,
which the totals give; the few the queue or a lease holds (pending, parked or under review)
are then moved to the state claim_states.py gives them, by the same SQL."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, and_, case, func, or_, select, union
from sqlalchemy.exc import SQLAlchemyError

from claims_crew.errors import DatabaseUnavailable
from claims_crew.store import tables as t
from claims_crew.store.base import StoreBase
from claims_crew.store.claim_states import state_case
from claims_crew.store.schema import current_revision
from claims_crew.store.service_tables import webhook_deliveries
from claims_crew.vocabulary import CLAIM_STATES, OPEN_OUTCOMES


@dataclass(frozen=True)
class ModelUsage:
    """Decided attempts' model calls and tokens for one task run on one model ('' unknown)."""

    task: str
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class MetricFigures:
    """One scrape's figures from the store, read in one snapshot."""

    claims: dict[str, int]  # by state (vocabulary.CLAIM_STATES), as the API states each
    decisions: dict[tuple[str, str], int]  # (outcome, rule) → decisions in force
    usage: list[ModelUsage]
    escalations_open: int
    escalations_overdue: int  # open, past their last day to decide
    reviewed: int  # escalations a person decided
    review_seconds: float  # from each one's opening to its decision, summed
    queue_depth: int  # claims pending in the queue, held or not
    deliveries: dict[str, int]  # webhook deliveries by status


def _totals(conn: Connection) -> list[tuple[str, str, str, int, int, int, int]]:
    m = t.metric_totals.c
    rows = conn.execute(
        select(m.figure, m.a, m.b, m.n, m.prompt_tokens, m.completion_tokens, m.micros)
    ).all()
    return [(r[0], r[1], r[2], int(r[3]), int(r[4]), int(r[5]), int(r[6])) for r in rows]


def _count(conn: Connection, *where: object) -> int:
    e = t.escalations.c
    return int(conn.execute(select(func.count(e.id)).where(*where)).scalar_one())  # type: ignore[arg-type]


def _unsettled_deliveries(conn: Connection) -> dict[str, int]:
    """Deliveries pending and failed, counted over the `webhook_deliveries_due` index."""
    d = webhook_deliveries.c
    rows = conn.execute(
        select(d.status, func.count()).where(d.status.in_(("pending", "failed"))).group_by(d.status)
    ).all()
    return {"pending": 0, "failed": 0} | {str(r[0]): int(r[1]) for r in rows}


def _held_moves(conn: Connection, now: str) -> list[tuple[str, str, int]]:
    """(state apart from the queue and leases, state, claims) for the claims the queue or a
    lease holds: few, whatever the store's size (the work_items_take index finds them)."""
    c, w, d, e, lease = t.claim_files.c, t.work_items.c, t.decisions.c, t.escalations.c, t.leases.c
    held = union(
        select(w.claim_id).where(w.state.in_(("pending", "failed"))),
        select(lease.claim_id).where(lease.expires_at > now),
    ).subquery()
    open_ = or_(e.state == "open", and_(e.id.is_(None), d.outcome.in_(OPEN_OUTCOMES)))
    settled = case((d.claim_id.is_(None), "failed"), (open_, "escalated"), else_="decided")
    each = (
        select(settled.label("settled"), state_case(now).label("state"))
        .select_from(
            held.outerjoin(t.work_items, w.claim_id == held.c.claim_id)
            .outerjoin(t.decisions, d.claim_id == held.c.claim_id)
            .outerjoin(t.escalations, e.claim_id == held.c.claim_id)
            .outerjoin(t.leases, lease.claim_id == held.c.claim_id)
        )
        .where(select(c.claim_id).where(c.claim_id == held.c.claim_id).exists())
        .subquery()
    )
    rows = conn.execute(
        select(each.c.settled, each.c.state, func.count()).group_by(each.c.settled, each.c.state)
    ).all()
    return [(str(r[0]), str(r[1]), int(r[2])) for r in rows]


class MetricCounts(StoreBase):
    """What the readiness probe and a metrics scrape ask of the store."""

    def schema_revision(self) -> str | None:
        """The database's migration revision now (None: never migrated). Asked once, not
        ridden out: a readiness probe wants the answer now. DatabaseUnavailable when the
        database does not answer."""
        try:
            with self.engine.connect() as conn:
                return current_revision(conn)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"{self.where} does not answer: {exc}") from exc

    def metric_figures(self, today: str) -> MetricFigures:
        """The figures of a scrape; overdue: open escalations due before `today` (ISO date)."""
        e = t.escalations.c
        with self.read() as conn:
            now = self.now()
            totals = _totals(conn)
            w = t.work_items.c
            queued = conn.execute(select(func.count()).where(w.state == "pending")).scalar_one()
            unsettled = _unsettled_deliveries(conn)
            open_ = _count(conn, e.state == "open")
            overdue = _count(conn, e.state == "open", e.decide_by < today)
            moves = _held_moves(conn, now)
        decisions = {(a, b): n for figure, a, b, n, *_ in totals if figure == "decisions" and n}
        reviews = [(n, micros) for figure, _, _, n, _, _, micros in totals if figure == "reviews"]
        reviewed, micros = reviews[0] if reviews else (0, 0)
        claims = sum(n for figure, _, _, n, *_ in totals if figure == "claims")
        made = sum(n for figure, _, _, n, *_ in totals if figure == "deliveries")
        deliveries = unsettled | {"delivered": made - sum(unsettled.values())}
        decided = sum(decisions.values())
        waiting = sum(n for (outcome, _), n in decisions.items() if outcome in OPEN_OUTCOMES)
        # Every escalation in force rests on a decision with an open outcome, and is open or
        # decided by a person: escalated, the decisions with an open outcome that no person
        # decided (an open escalation, or none recorded).
        escalated = waiting - reviewed
        counts: dict[str, int] = dict.fromkeys(CLAIM_STATES, 0)
        counts |= {"failed": claims - decided, "escalated": escalated}
        counts["decided"] = decided - escalated
        for settled, state, n in moves:
            counts[settled] -= n
            counts[state] += n
        usage = [
            ModelUsage(a, b, n, prompt, completion)
            for figure, a, b, n, prompt, completion, _ in totals
            if figure == "model_usage"
        ]
        return MetricFigures(
            claims=counts,
            decisions=decisions,
            usage=usage,
            escalations_open=open_,
            escalations_overdue=overdue,
            reviewed=reviewed,
            review_seconds=micros / 1_000_000,
            queue_depth=int(queued),
            deliveries=deliveries,
        )
