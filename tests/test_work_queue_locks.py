"""The work queue's take on PostgreSQL: FOR UPDATE SKIP LOCKED, so workers never wait on one
another. PostgreSQL only: on SQLite every take waits its turn on the file's lock, and
tests/test_work_queue.py covers the queue on both engines.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import select

from claims_crew.store import Store, lease_holder
from claims_crew.store import tables as t
from tests.support.store import water_loaded


def test_a_take_skips_rows_another_take_has_locked_without_waiting(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_DATABASE_URL", postgres_url)
    store = Store()
    for claim_id in ("C-1", "C-2"):
        store.enqueue(water_loaded(tmp_path / "inbox", claim_id))
    other = Store()
    w = t.work_items.c
    with store.write(exclusive=False) as conn:
        # Another worker's take, still open: it holds C-1's row.
        conn.execute(
            select(w.claim_id).where(w.claim_id == "C-1").with_for_update(skip_locked=True)
        ).one()
        done = threading.Event()
        taken: list[str] = []

        def take() -> None:
            taken.extend(i.claim_id for i in other.take(lease_holder(), limit=2))
            done.set()

        thread = threading.Thread(target=take)
        thread.start()
        assert done.wait(10), "the take waited on another take's row"
        thread.join()
    assert taken == ["C-2"]
    # The other take's transaction has ended: C-1 is there to be taken.
    assert [i.claim_id for i in store.take(lease_holder())] == ["C-1"]
