"""The webhook outbox: what is announced is written in the same transaction as what it
announces, and delivered from here afterwards (webhooks/ sends it).

A decision's audit entry (audit.append) and a claim parked after failed reviews (failures.py)
each write one `webhook_events` row beside them, through `announce`, in the caller's own
transaction: the event exists exactly when what it announces does, so a decision is never
announced twice, nor lost by a crash between deciding and sending. Its payload is fixed then,
as canonical JSON in the Standard Webhooks shape (`{"type", "timestamp", "data"}`), so every
try of every delivery sends the same bytes under the same id.

`Outbox.fan_out` turns each event not yet fanned into one pending delivery per endpoint that
wants its type, and marks it fanned: an endpoint configured later is not sent old events.
Senders take due deliveries under a lease (`take_deliveries`), as workers take claims
(work_queue.py): on PostgreSQL with FOR UPDATE SKIP LOCKED, so two senders never take the same
delivery, and a sender that dies leaves its deliveries to be taken again once the lease ends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, and_, func, insert, or_, select, update

from claims_crew.store.base import StoreBase
from claims_crew.store.entry_kinds import AuditEntry, canonical
from claims_crew.store.metric_totals import count_deliveries
from claims_crew.store.outage import rides_out
from claims_crew.store.service_tables import webhook_deliveries, webhook_events
from claims_crew.store.sql import insert_new
from claims_crew.vocabulary import stamp
from claims_crew.webhook_events import WebhookEvent

DELIVERY_STATES = ("pending", "delivered", "failed")
# Events fanned out per pass: a backlog is worked through over several passes, each short.
FAN_OUT_BATCH = 500


def announce(
    conn: Connection,
    event: WebhookEvent,
    claim_id: str,
    data: Mapping[str, Any],
    at: str,
    event_id: str,
) -> None:
    """Write one event in the caller's transaction, its payload fixed now."""
    payload = canonical({"type": event, "timestamp": at, "data": dict(data)})
    conn.execute(
        insert(webhook_events).values(
            id=event_id, type=event, claim_id=claim_id, payload=payload, created_at=at
        )
    )


def entry_event(entry: AuditEntry) -> WebhookEvent | None:
    """What an audit entry announces, if anything: a decision, an escalation, a person's
    decision on one, or an appeal's decision; desk entries, letters, replays and calls none."""
    if entry.appeal is not None:
        return "appeal.decided"
    if entry.kind in ("auto", "adjudicated"):
        return "claim.decided"
    if entry.kind == "escalated":
        return "claim.escalated"
    if entry.kind == "human":
        return "escalation.decided"
    return None


def announce_entry(conn: Connection, entry: AuditEntry, digest: str) -> None:
    """Announce the entry just appended (by its hash `digest`), if it announces anything."""
    event = entry_event(entry)
    if event is None:
        return
    data = {
        "claim_id": entry.claim_id,
        "outcome": entry.outcome,
        "answer": entry.answer,
        "rule": entry.rule,
        "reason_codes": list(entry.reason_codes),
        "actor": entry.actor,
        "audit": {"seq": entry.seq, "hash": digest},
    }
    announce(conn, event, entry.claim_id, data, entry.at, f"evt_{digest[:32]}")


def announce_failure(conn: Connection, claim_id: str, failures: int, reason: str, at: str) -> None:
    """Announce a claim parked after `failures` failed reviews, the last for `reason`."""
    data = {"claim_id": claim_id, "failures": failures, "reason": reason}
    # Parked once per (claim, time, count): the id is that, hashed.
    parking = canonical(["claim.failed", claim_id, at, failures])
    digest = hashlib.sha256(parking.encode("utf-8")).hexdigest()
    announce(conn, "claim.failed", claim_id, data, at, f"evt_{digest[:32]}")


@dataclass(frozen=True)
class Delivery:
    """One event's delivery to one endpoint, with the event's payload."""

    id: int
    event_id: str
    event: str
    claim_id: str
    endpoint: str
    status: str  # pending | delivered | failed
    attempts: int
    next_at: str | None
    last_status: int | None
    last_error: str | None
    delivered_at: str | None
    created_at: str
    payload: str


_d, _e = webhook_deliveries.c, webhook_events.c
_DELIVERIES = select(
    _d.id,
    _d.event_id,
    _e.type.label("event"),
    _e.claim_id,
    _d.endpoint,
    _d.status,
    _d.attempts,
    _d.next_at,
    _d.last_status,
    _d.last_error,
    _d.delivered_at,
    _d.created_at,
    _e.payload,
).select_from(webhook_deliveries.join(webhook_events, webhook_events.c.id == _d.event_id))


def _delivery(row: Any) -> Delivery:
    return Delivery(**{name: row._mapping[name] for name in Delivery.__dataclass_fields__})


class Outbox(StoreBase):
    """Events fanned out to endpoints, and their deliveries taken, tried and marked."""

    @rides_out
    def fan_out(self, wants: Mapping[str, frozenset[str]]) -> int:
        """One pending delivery of each unfanned event per endpoint (name → the event types it
        wants) that wants it; the events marked fanned. How many deliveries were made."""
        unfanned = select(_e.seq, _e.id, _e.type).where(_e.fanned_at.is_(None))
        with self.read() as conn:
            if conn.execute(unfanned.limit(1)).first() is None:
                return 0  # the usual pass: nothing new, and no write lock taken
        made = 0
        with self.write() as conn:
            now = self.now()
            events = conn.execute(unfanned.order_by(_e.seq).limit(FAN_OUT_BATCH))
            fanned = []
            for event in events.all():
                for endpoint in sorted(n for n, kinds in wants.items() if event.type in kinds):
                    row = {"event_id": event.id, "endpoint": endpoint, "next_at": now}
                    row |= {"status": "pending", "attempts": 0, "created_at": now}
                    made += insert_new(conn, webhook_deliveries, row, ["event_id", "endpoint"])
                fanned.append(event.id)
            if fanned:
                conn.execute(update(webhook_events).where(_e.id.in_(fanned)).values(fanned_at=now))
            count_deliveries(conn, made)
        return made

    @rides_out
    def take_deliveries(self, holder: str, limit: int, lease_s: float) -> list[Delivery]:
        """Up to `limit` due pending deliveries nobody holds, oldest due first, held by
        `holder` for `lease_s` seconds."""
        with self.write(exclusive=False) as conn:
            now = self.now()
            free = or_(_d.taken_until.is_(None), _d.taken_until <= now)
            ids: list[int] = list(
                conn.scalars(
                    select(_d.id)
                    .where(_d.status == "pending", _d.next_at <= now, free)
                    .order_by(_d.next_at, _d.id)
                    .limit(limit)
                    .with_for_update(skip_locked=True)
                )
            )
            if not ids:
                return []
            until = stamp(self.clock() + timedelta(seconds=lease_s))
            conn.execute(
                update(webhook_deliveries)
                .where(_d.id.in_(ids))
                .values(taken_by=holder, taken_until=until)
            )
            rows = conn.execute(_DELIVERIES.where(_d.id.in_(ids)).order_by(_d.next_at, _d.id))
            return [_delivery(row) for row in rows]

    @rides_out
    def hold_delivery(self, delivery_id: int, holder: str, lease_s: float) -> bool:
        """Extend `holder`'s lease on a pending delivery to `lease_s` seconds from now, just
        before a try; False when another sender has taken it since (the try must not start).
        One conditional UPDATE: it and another sender's take are ordered by the row's lock."""
        held = and_(_d.id == delivery_id, _d.taken_by == holder, _d.status == "pending")
        with self.write(exclusive=False) as conn:
            until = stamp(self.clock() + timedelta(seconds=lease_s))
            done = conn.execute(
                update(webhook_deliveries).where(held).values(taken_until=until).returning(_d.id)
            ).first()
        return done is not None

    def _finish(self, delivery_id: int, holder: str, **values: Any) -> bool:
        """Record a try of a delivery `holder` holds; False when it holds it no longer."""
        held = and_(_d.id == delivery_id, _d.taken_by == holder, _d.status == "pending")
        with self.write(exclusive=False) as conn:
            done = conn.execute(
                update(webhook_deliveries)
                .where(held)
                .values(attempts=_d.attempts + 1, taken_by=None, taken_until=None, **values)
                .returning(_d.id)
            ).first()
        return done is not None

    @rides_out
    def delivered(self, delivery_id: int, holder: str, status_code: int) -> bool:
        """The receiver took it (a 2xx): delivered, not tried again."""
        now = self.now()
        return self._finish(
            delivery_id,
            holder,
            status="delivered",
            last_status=status_code,
            last_error=None,
            delivered_at=now,
            next_at=None,
        )

    @rides_out
    def retry_later(
        self,
        delivery_id: int,
        holder: str,
        status_code: int | None,
        error: str,
        next_at: str | None,
    ) -> bool:
        """A try failed (`status_code`: the receiver's answer; None: none came): tried again
        from `next_at`, or, when that is None (the retries are spent), failed for good."""
        state = "pending" if next_at is not None else "failed"
        return self._finish(
            delivery_id,
            holder,
            status=state,
            last_status=status_code,
            last_error=error,
            next_at=next_at,
        )

    def deliveries(self, status: str | None = None, limit: int = 100) -> list[Delivery]:
        """The latest deliveries first, of one status if given."""
        query = _DELIVERIES.order_by(_d.id.desc()).limit(limit)
        if status is not None:
            query = query.where(_d.status == status)
        with self.read() as conn:
            return [_delivery(row) for row in conn.execute(query)]

    @rides_out
    def delivery_counts(self) -> dict[str, int]:
        """How many deliveries are pending, delivered and failed."""
        with self.read() as conn:
            rows = conn.execute(select(_d.status, func.count()).group_by(_d.status)).all()
        return {state: 0 for state in DELIVERY_STATES} | {str(row[0]): int(row[1]) for row in rows}
