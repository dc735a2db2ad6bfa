"""The webhook outbox in the real store (SQLite and PostgreSQL): each decision entry writes its
event in its own transaction, events fan out once per endpoint that wants them, and senders take
deliveries under leases that two never share."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from claims_crew.store import Store, audit
from claims_crew.store.entry_kinds import AppealLink
from claims_crew.store.service_tables import webhook_events
from claims_crew.vocabulary import stamp
from claims_crew.webhook_events import EVENTS, WEBHOOK_EVENTS
from tests.support.outbox import append
from tests.support.store import START, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

EVERY = frozenset(WEBHOOK_EVENTS)


def events(store: Store) -> list[dict[str, Any]]:
    with store.read() as conn:
        rows = conn.execute(select(webhook_events).order_by(webhook_events.c.seq))
        return [dict(row._mapping) for row in rows]


def test_each_deciding_entry_announces_one_event_with_the_entry_in_it() -> None:
    store = Store()
    decided, digest = append(store, "auto")
    append(store, "escalated", "C-2", outcome="ESCALATED", answer=None)
    append(store, "human", "C-2", actor="human:lee")
    link = AppealLink(replaces=1, replaces_hash=digest, reason="new receipt", attachments=[])
    append(store, "adjudicated", appeal=link)
    append(store, "letter")  # letters, desk entries and calls announce nothing
    append(store, "reviewer", "", reviewer="lee", settings={})
    store.record_call("core", "GET /api/v1/claims/C-1", 200, "C-1")

    found = events(store)
    assert [(e["type"], e["claim_id"]) for e in found] == [
        ("claim.decided", "C-1"),
        ("claim.escalated", "C-2"),
        ("escalation.decided", "C-2"),
        ("appeal.decided", "C-1"),
    ]
    first = found[0]
    assert first["id"] == f"evt_{digest[:32]}" and first["fanned_at"] is None
    assert json.loads(first["payload"]) == {
        "type": "claim.decided",
        "timestamp": decided.at,
        "data": {
            "claim_id": "C-1",
            "outcome": "ACCEPTED",
            "answer": "covered",
            "rule": "R1",
            "reason_codes": ["COV-1"],
            "actor": "auto",
            "audit": {"seq": 1, "hash": digest},
        },
    }
    # The payload is fixed text: canonical JSON, the same bytes every try.
    assert first["payload"] == audit.canonical(json.loads(first["payload"]))


def test_a_rolled_back_decision_leaves_no_event() -> None:
    store = Store()
    with pytest.raises(RuntimeError), store.write() as conn:
        audit.append(
            conn, store.audit_key(), kind="auto", claim_id="C-1", claim_sha256="a" * 64,
            policy_sha256=None, config_sha256=None, models={}, outcome="ACCEPTED",
            answer="covered", rule="R1", reason_codes=[], evidence=[], actor="auto",
            reason=None, overrides=None, overrides_hash=None, at=store.now(),
        )  # fmt: skip
        assert len(events_in(conn)) == 1
        raise RuntimeError("the decision's transaction fails after the entry")
    assert events(store) == [] and store.audit_entries("C-1") == []


def events_in(conn: Any) -> list[Any]:
    return list(conn.execute(select(webhook_events.c.id)))


def test_fan_out_makes_one_delivery_per_endpoint_that_wants_the_event_once() -> None:
    store = Store()
    append(store, "auto")
    append(store, "escalated", "C-2")
    wants = {"core": EVERY, "ops": frozenset({"claim.escalated"}), "none": frozenset()}
    assert store.fan_out(wants) == 3
    assert store.fan_out(wants) == 0  # fanned: never twice
    assert all(e["fanned_at"] is not None for e in events(store))
    # An endpoint configured later gets the events from then on, not the old ones.
    wants["late"] = EVERY
    assert store.fan_out(wants) == 0
    append(store, "auto", "C-3")
    assert store.fan_out(wants) == 2
    listed = {(d.event, d.claim_id, d.endpoint, d.status) for d in store.deliveries()}
    assert listed == {
        ("claim.decided", "C-1", "core", "pending"),
        ("claim.escalated", "C-2", "core", "pending"),
        ("claim.escalated", "C-2", "ops", "pending"),
        ("claim.decided", "C-3", "core", "pending"),
        ("claim.decided", "C-3", "late", "pending"),
    }
    assert store.delivery_counts() == {"pending": 5, "delivered": 0, "failed": 0}


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def test_a_taken_delivery_is_leased_then_delivered_retried_or_failed() -> None:
    clock = Clock(START)
    store = Store(clock=clock)
    for claim_id in ("C-1", "C-2", "C-3"):
        append(store, "auto", claim_id)
    store.fan_out({"core": EVERY})
    taken = store.take_deliveries("sender-a", 10, lease_s=30)
    assert [d.claim_id for d in taken] == ["C-1", "C-2", "C-3"]
    assert json.loads(taken[0].payload)["data"]["claim_id"] == "C-1"
    assert store.take_deliveries("sender-b", 10, lease_s=30) == []  # leased to sender-a
    assert not store.delivered(taken[0].id, "sender-b", 200)  # not sender-b's to mark

    assert store.delivered(taken[0].id, "sender-a", 204)
    later = stamp(START + timedelta(seconds=300))
    assert store.retry_later(taken[1].id, "sender-a", 503, "503 Service Unavailable", later)
    assert store.retry_later(taken[2].id, "sender-a", None, "connection refused", None)
    assert not store.delivered(taken[2].id, "sender-a", 200)  # failed for good
    assert store.delivery_counts() == {"pending": 1, "delivered": 1, "failed": 1}
    (failed,) = store.deliveries(status="failed")
    assert (failed.claim_id, failed.attempts, failed.last_status) == ("C-3", 1, None)
    assert failed.last_error == "connection refused"
    (done,) = store.deliveries(status="delivered")
    assert (done.attempts, done.last_status, done.delivered_at) == (1, 204, stamp(START))

    # The retry is due at its time, not before.
    assert store.take_deliveries("sender-b", 10, lease_s=30) == []
    clock.now = START + timedelta(seconds=301)
    (again,) = store.take_deliveries("sender-b", 10, lease_s=30)
    assert (again.claim_id, again.attempts, again.last_status) == ("C-2", 1, 503)
    # A sender that dies holds it only until its lease ends.
    clock.now += timedelta(seconds=31)
    (retaken,) = store.take_deliveries("sender-c", 10, lease_s=30)
    assert retaken.id == again.id
    assert not store.delivered(again.id, "sender-b", 200)
    assert store.delivered(again.id, "sender-c", 200)


def test_a_lease_held_over_a_try_keeps_it_and_a_lost_one_is_not_regained() -> None:
    clock = Clock(START)
    store = Store(clock=clock)
    append(store, "auto", "C-1")
    store.fan_out({"core": EVERY})
    (taken,) = store.take_deliveries("sender-a", 10, lease_s=30)
    # Just before its try, sender-a holds it for 60 s more: past the batch's lease.
    clock.now = START + timedelta(seconds=29)
    assert store.hold_delivery(taken.id, "sender-a", lease_s=60)
    clock.now = START + timedelta(seconds=31)
    assert store.take_deliveries("sender-b", 10, lease_s=30) == []
    assert not store.hold_delivery(taken.id, "sender-b", lease_s=60)  # not sender-b's
    # Once that lease ends, sender-b takes it, and sender-a may no longer try it.
    clock.now = START + timedelta(seconds=90)
    (again,) = store.take_deliveries("sender-b", 10, lease_s=30)
    assert again.id == taken.id
    assert not store.hold_delivery(taken.id, "sender-a", lease_s=60)
    assert store.hold_delivery(taken.id, "sender-b", lease_s=60)
    assert store.delivered(taken.id, "sender-b", 204)
    assert not store.hold_delivery(taken.id, "sender-b", lease_s=60)  # delivered: done


def test_two_takers_never_take_the_same_delivery() -> None:
    store = Store()
    for n in range(24):
        append(store, "auto", f"C-{n}")
    assert store.fan_out({"core": EVERY}) == 24

    def sender(name: str) -> list[int]:
        own = Store()
        taken: list[int] = []
        try:
            while batch := own.take_deliveries(name, 3, lease_s=60):
                taken += [d.id for d in batch]
            return taken
        finally:
            own.close()

    with ThreadPoolExecutor(4) as pool:
        batches = list(pool.map(sender, ["s1", "s2", "s3", "s4"]))
    taken = [i for batch in batches for i in batch]
    assert sorted(taken) == sorted(d.id for d in store.deliveries())
    assert len(set(taken)) == len(taken) == 24


def test_a_claim_parked_after_failed_reviews_announces_claim_failed(tmp_path: Path) -> None:
    store = Store()
    store.enqueue(water_loaded(tmp_path / "inbox", "C-1042"))
    (item,) = store.take("worker-1")
    assert not store.fail(item.claim_id, "worker-1", "the PDF would not open", most=2)
    assert events(store) == []  # given up for the next taker, not parked: nothing to tell
    (item,) = store.take("worker-1")
    assert store.fail(item.claim_id, "worker-1", "the PDF would not open", most=2)
    (event,) = events(store)
    assert (event["type"], event["claim_id"]) == ("claim.failed", "C-1042")
    assert json.loads(event["payload"])["data"] == {
        "claim_id": "C-1042",
        "failures": 2,
        "reason": "the PDF would not open",
    }
    assert store.fan_out({"core": frozenset({"claim.failed"})}) == 1


def test_the_store_writes_every_listed_event_and_no_other_with_its_listed_data(
    tmp_path: Path,
) -> None:
    """webhook_events.py's list is what the store writes: each event, and the keys of its data."""
    store = Store()
    _, digest = append(store, "auto")
    append(store, "escalated", "C-2", outcome="ESCALATED", answer=None)
    append(store, "human", "C-2", actor="human:lee")
    link = AppealLink(replaces=1, replaces_hash=digest, reason="new receipt", attachments=[])
    append(store, "adjudicated", appeal=link)
    store.enqueue(water_loaded(tmp_path / "inbox", "C-1042"))
    (item,) = store.take("worker-1")
    assert store.fail(item.claim_id, "worker-1", "the PDF would not open", most=1)

    written = {e["type"]: tuple(json.loads(e["payload"])["data"]) for e in events(store)}
    assert {name: sorted(data) for name, data in written.items()} == {
        kind.name: sorted(kind.data) for kind in EVENTS
    }
