"""`review list` reads a page of the open escalations and counts the rest in SQL, on both stores.

What each statement the store runs returns is counted through SQLAlchemy's cursor events (the
statement and its parameters as the driver got them, run again as a count), so a list that read
every open escalation and cut a page out in Python shows as a statement returning all of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.views import escalation_list
from claims_crew.store import Store
from tests.support.store import record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")
OPEN = 7
PAGE = 2


@contextmanager
def rows_returned(store: Store) -> Iterator[list[int]]:
    """The rows each SELECT run on the store's engine returns, in order, while inside."""
    seen: list[tuple[str, Any]] = []

    def note(conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", note)
    counts: list[int] = []
    try:
        yield counts
    finally:
        event.remove(store.engine, "before_cursor_execute", note)
    with store.engine.connect() as conn:
        for statement, parameters in seen:
            counted = f"SELECT count(*) FROM ({statement}) AS returned"
            counts.append(int(conn.exec_driver_sql(counted, parameters).scalar_one()))


@pytest.fixture
def queue(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """OPEN water claims escalated through the store's own recording."""
    store = Store()
    for i in range(OPEN):
        loaded = water_loaded(tmp_path / "claims", f"C-{2000 + i}")
        store.record(record_for(loaded, sample_library), None, loaded)
    return store


def test_review_list_counts_all_and_reads_one_page(queue: Store) -> None:
    in_order = [e.claim_id for e in queue.open_escalations(limit=OPEN + 1)]
    with rows_returned(queue) as counts:
        listed = escalation_list(queue, page=2, page_size=PAGE)
    assert listed["total"] == OPEN and listed["pages"] == 4 and listed["page"] == 2
    assert [row["claim_id"] for row in listed["escalations"]] == in_order[PAGE : 2 * PAGE]
    assert counts, "no statement was seen"
    assert max(counts) <= PAGE, counts  # a page, and counts: never every open escalation


def test_the_last_page_holds_what_is_left(queue: Store) -> None:
    listed = escalation_list(queue, page=4, page_size=PAGE)
    assert listed["total"] == OPEN
    assert len(listed["escalations"]) == OPEN - 3 * PAGE
