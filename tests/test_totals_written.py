"""The totals /metrics reads (store/metric_totals.py), added as a decision is written: every
share counts, two shares of one row both, and a decision's shares go to the store in one call
of one statement built once, on SQLite and on PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, select

from claims_crew.store import Store
from claims_crew.store.metric_totals import Total, add
from claims_crew.store.tables import metric_totals

pytestmark = pytest.mark.usefixtures("engine")


def test_a_decision_s_shares_are_added_in_one_call_and_each_counts() -> None:
    store = Store()
    calls: list[bool] = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def _seen(*args: Any) -> None:
        statement, executemany = args[2], args[5]
        if "metric_totals" in statement:
            calls.append(executemany)

    shares = [
        Total("decisions", "ACCEPTED", "agree", 1),
        Total("model_usage", "policy_task", "m", 1, prompt_tokens=10, completion_tokens=2),
        Total("model_usage", "policy_task", "m", 2, prompt_tokens=5, completion_tokens=1),
    ]
    with store.write() as conn:
        add(conn, shares)
    assert calls == [True], calls  # one statement, its three rows sent together
    with store.write() as conn:
        add(conn, shares[1:2], sign=-1)
        add(conn, [])  # nothing to add: no statement at all
    assert calls == [True, False], calls

    with store.read() as conn:
        rows = conn.execute(
            select(
                metric_totals.c.figure,
                metric_totals.c.a,
                metric_totals.c.n,
                metric_totals.c.prompt_tokens,
                metric_totals.c.completion_tokens,
            ).order_by(metric_totals.c.figure)
        ).all()
    assert [tuple(r) for r in rows] == [
        ("decisions", "ACCEPTED", 1, 0, 0),
        ("model_usage", "policy_task", 2, 5, 1),
    ]
