"""The store's work queue (store/work_queue.py), on SQLite and on PostgreSQL: claims queued
whole with their attachments, taken by one worker at a time, held by heartbeats, and freed
when their holder dies; a decided claim is never queued again.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from claims_crew.claim_files import load_claim
from claims_crew.errors import ClaimFileError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.ingest import ingest
from claims_crew.store import Store, lease_holder, work_queue
from claims_crew.store import tables as t
from claims_crew.store.work_queue import WORK_LEASE_S, Taken
from claims_crew.vocabulary import parse_stamp, stamp, utc_now
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

INBOX = ROOT / "claims" / "inbox"


def dead_pid() -> int:
    """The pid of a process of this host that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def item_row(store: Store, claim_id: str) -> dict[str, object]:
    with store.read() as conn:
        row = conn.execute(select(t.work_items).where(t.work_items.c.claim_id == claim_id)).one()
    return dict(row._mapping)


def test_an_ingested_claim_comes_back_whole_from_the_store_with_its_attachments(
    tmp_path: Path,
) -> None:
    store = Store()
    path = INBOX / "C-1043.json"
    assert [r.state for r in ingest([path], store)] == ["queued"]
    taken = store.take(lease_holder())
    assert [(i.claim_id, Path(i.path)) for i in taken] == [("C-1043", path)]
    rebuilt = store.loaded("C-1043", taken[0].sha256)
    original = load_claim(path)
    assert rebuilt is not None
    assert rebuilt.raw == original.raw and rebuilt.sha256 == original.sha256
    assert rebuilt.claim == original.claim
    assert rebuilt.attachments == original.attachments
    assert "burst 15 mm copper pipe" in rebuilt.attachments["C-1043-plumber.txt"].lower()
    assert rebuilt.as_text() == original.as_text()  # what the intake agent is shown


def test_ingest_refuses_bad_files_as_a_run_does_and_queues_the_rest(tmp_path: Path) -> None:
    store = Store()
    inbox = tmp_path / "inbox"
    good = water_loaded(inbox, "C-1").path
    (inbox / "broken.json").write_text("{not json", encoding="utf-8")
    twin_a = water_loaded(inbox, "C-2").path
    twin_b = inbox / "C-2-copy.json"
    twin_b.write_bytes(twin_a.read_bytes())
    results = {r.path.name: r for r in ingest([good, inbox / "broken.json", twin_a, twin_b], store)}
    assert results["C-1.json"].state == "queued"
    assert (results["broken.json"].state, results["broken.json"].code) == (None, "malformed")
    assert results["C-2.json"].code == results["C-2-copy.json"].code == "duplicate_id"
    assert store.queue_counts().pending == 1
    # Ingested again, nothing is queued twice.
    assert [r.state for r in ingest([good], store)] == ["already_queued"]
    assert store.queue_counts().pending == 1


def test_a_decided_claim_is_not_queued_again_and_a_changed_file_is_flagged(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    assert store.enqueue(loaded) == "queued"
    item = store.take(lease_holder())[0]
    store.record(record_for(loaded, sample_library), loaded=loaded)
    assert store.finish(item)
    assert store.enqueue(loaded) == "decided"
    changed = water_loaded(tmp_path / "inbox", amount=9999)
    assert store.enqueue(changed) == "changed_after_decision"
    assert [(c.claim_id, c.sha256) for c in store.changed_after_decision()] == [
        ("C-1042", changed.sha256)
    ]
    counts = store.queue_counts()
    assert (counts.pending, counts.done) == (0, 1)
    assert store.take(lease_holder()) == []


def test_a_changed_file_for_a_claim_under_review_is_refused(tmp_path: Path) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    assert store.enqueue(loaded) == "queued"
    item = store.take(lease_holder())[0]
    assert store.enqueue(loaded) == "in_progress"
    changed = water_loaded(tmp_path / "other", amount=9999)
    with pytest.raises(ClaimFileError, match=r"already queued from C-1042\.json") as refused:
        store.enqueue(changed)
    assert refused.value.code == "duplicate_id"
    assert item_row(store, "C-1042")["sha256"] == item.sha256 == loaded.sha256
    assert store.loaded("C-1042", changed.sha256) is None  # nothing of it was kept


@pytest.mark.parametrize("chunk", [64, 2, 1])  # one transaction, or several
def test_files_enqueued_together_are_each_queued_or_refused_as_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(work_queue, "ENQUEUE_CHUNK", chunk)
    store = Store()
    queued = water_loaded(tmp_path / "inbox")
    assert store.enqueue(queued) == "queued"
    changed = water_loaded(tmp_path / "other", amount=9999)
    fresh = [water_loaded(tmp_path / "inbox", claim_id) for claim_id in ("C-1", "C-2")]
    results = store.enqueue_all([fresh[0], changed, fresh[1], queued])
    assert results[0] == results[2] == "queued" and results[3] == "already_queued"
    assert isinstance(results[1], ClaimFileError) and results[1].code == "duplicate_id"
    assert store.loaded("C-1042", changed.sha256) is None  # the refused file's rows went
    assert [store.loaded(f.claim.claim_id, f.sha256) is not None for f in fresh] == [True, True]
    # Taken in the order they were given, as files enqueued one at a time are.
    assert [i.claim_id for i in store.take(lease_holder(), limit=3)] == ["C-1042", "C-1", "C-2"]


def test_a_taken_claim_is_not_taken_again_until_finished_or_put_back(tmp_path: Path) -> None:
    store = Store()
    for claim_id in ("C-1", "C-2"):
        store.enqueue(water_loaded(tmp_path / "inbox", claim_id))
    first, second = lease_holder(), lease_holder()
    a = store.take(first)
    b = store.take(second)
    assert [i.claim_id for i in a] == ["C-1"] and [i.claim_id for i in b] == ["C-2"]
    assert store.take(lease_holder()) == []
    assert not store.finish(Taken(a[0].claim_id, a[0].sha256, a[0].path, second))
    store.put_back(a[0])
    again = store.take(lease_holder())
    assert [i.claim_id for i in again] == ["C-1"]
    assert item_row(store, "C-1")["tries"] == 2
    assert store.finish(again[0]) and store.finish(b[0])
    counts = store.queue_counts()
    assert (counts.pending, counts.held, counts.done) == (0, 0, 2)


def test_a_claim_whose_holder_died_on_this_host_is_free_at_once(tmp_path: Path) -> None:
    store = Store()
    store.enqueue(water_loaded(tmp_path / "inbox", "C-1"))
    store.enqueue(water_loaded(tmp_path / "inbox", "C-2"))
    live = lease_holder()  # this process: alive
    dead = f"{socket.gethostname()}:{dead_pid()}:0000"
    assert [i.claim_id for i in store.take(dead, limit=1)] == ["C-1"]
    assert [i.claim_id for i in store.take(live, limit=1)] == ["C-2"]
    # C-1's lease runs for a minute more, but the process that held it is gone.
    retaken = store.take(lease_holder(), limit=5)
    assert [i.claim_id for i in retaken] == ["C-1"]


def test_a_claim_held_on_another_host_is_free_only_when_its_lease_runs_out(
    tmp_path: Path,
) -> None:
    store = Store()
    store.enqueue(water_loaded(tmp_path / "inbox", "C-1"))
    elsewhere = "another-host:1:0000"
    assert len(store.take(elsewhere)) == 1
    assert store.take(lease_holder()) == []
    with store.write() as conn:  # its heartbeats stopped a lease's length ago
        conn.execute(
            update(t.work_items).values(expires_at=stamp(utc_now() - timedelta(seconds=1)))
        )
    assert [i.claim_id for i in store.take(lease_holder())] == ["C-1"]


def test_a_heartbeat_extends_the_items_and_claim_leases_of_its_holders(tmp_path: Path) -> None:
    store = Store()
    store.enqueue(water_loaded(tmp_path / "inbox", "C-1"))
    holder = lease_holder()
    item = store.take(holder)[0]
    assert store.lease(item.claim_id, holder, 1)
    with store.write() as conn:
        conn.execute(update(t.work_items).values(expires_at=stamp(utc_now())))
    assert store.heartbeat([holder]) == 1
    expires = parse_stamp(str(item_row(store, "C-1")["expires_at"]))
    assert expires > utc_now() + timedelta(seconds=WORK_LEASE_S - 10)
    with store.read() as conn:
        lease_end = conn.execute(select(t.leases.c.expires_at)).scalar_one()
    assert parse_stamp(lease_end) > utc_now() + timedelta(seconds=WORK_LEASE_S - 10)
    assert store.heartbeat([lease_holder()]) == 0


def test_workers_taking_at_once_never_get_the_same_claim(tmp_path: Path) -> None:
    store = Store()
    ids = [f"C-{n}" for n in range(24)]
    for claim_id in ids:
        store.enqueue(water_loaded(tmp_path / "inbox", claim_id))
    got: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        mine = Store()  # a store (and pool) of its own, as another process has
        while taken := mine.take(lease_holder(), limit=2):
            with lock:
                got.extend(i.claim_id for i in taken)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(got) == sorted(ids)
