"""The report's facts (store/report_facts.py): kept with each decision, review and supersession
as a recount from the rows in force makes them, a decision's made from its record without
reading its rows back; the report summed over them gives every figure
the report over the whole rows gives; and it reads as many rows at five times the claims.

On both stores, over the thirteen known decisions (tests/support/report.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, insert, select

from claims_crew.policy.library import PolicyLibrary
from claims_crew.prices import PriceTable
from claims_crew.report import build_report, from_facts, load_rows, report
from claims_crew.report.desk import desk_figures
from claims_crew.store import Store
from claims_crew.store.decision_rows import Basis
from claims_crew.store.report_facts import recount_facts
from claims_crew.store.report_tables import report_facts, report_shapes
from claims_crew.store.tables import metadata
from tests.support.report import KNOWN, PRICES, known_store, loaded_claim, make_record
from tests.support.store import record_for, water_loaded

pytestmark = [pytest.mark.usefixtures("engine"), pytest.mark.slow]

NOW = datetime(2026, 1, 5, 12, tzinfo=UTC)
# The tables the report's rows were read from, which a copied claim is copied in, and the
# integer keys that point between them (each copy's are moved by COPY_STRIDE).
COPIED = (
    "claim_files",
    "attempts",
    "agent_outputs",
    "resolutions",
    "adjudications",
    "decisions",
    "escalations",
    "reviews",
    "report_facts",
)
KEYS = ("id", "attempt_id", "resolution_id", "escalation_id")
COPY_STRIDE = 100_000


@pytest.fixture
def known(sample_library: PolicyLibrary, tmp_path: Path) -> Store:
    return known_store(sample_library, tmp_path / "claims")


def facts(store: Store) -> set[tuple[Any, ...]]:
    """The facts kept; each names a shape the store keeps."""
    with store.read() as conn:
        kept = {tuple(row) for row in conn.execute(select(report_facts))}
        shapes = set(conn.execute(select(report_shapes.c.key)).scalars())
    assert {row[2] for row in kept} <= shapes
    return kept


def recounted(store: Store) -> set[tuple[Any, ...]]:
    """The facts a recount from the rows in force makes, left unwritten (rolled back)."""
    with store.engine.connect() as conn, conn.begin() as transaction:
        recount_facts(conn)
        made = {tuple(row) for row in conn.execute(select(report_facts))}
        transaction.rollback()
    return made


def test_facts_kept_as_recorded_reviewed_and_superseded_are_a_recount(
    known: Store, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    decided = list(known.decided_claims())
    kept = facts(known)
    assert len(decided) == 13
    assert {row[0] for row in kept} == {c.claim_id for c in decided}
    reviewed = {row[0]: row[10] for row in kept if row[10] is not None}
    assert reviewed == {c.claim_id: c.review for c in decided if c.review is not None} != {}
    assert kept == recounted(known)

    # A claim a person decided is decided again: its rows in force, review included, are
    # superseded, and its fact made anew from the new decision in the same transaction.
    (again,) = [c.claim_id for c in decided if c.review is not None][:1]
    loaded = water_loaded(tmp_path / "again", again)
    seq = known.audit_entries(again)[-1].seq
    known.record_revalidation(record_for(loaded, sample_library), loaded, Basis(), "new", [], seq)
    after = facts(known)
    assert after == recounted(known)
    (fact,) = [row for row in after if row[0] == again]
    assert fact[10] is None and fact[9] == "open"  # no review now: open again


def statements(store: Store, run: Callable[[], Any]) -> list[str]:
    """The SQL statements `run` has the store execute, in order."""
    ran: list[str] = []

    def keep(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        ran.append(statement)

    event.listen(store.engine, "before_cursor_execute", keep)
    try:
        run()
    finally:
        event.remove(store.engine, "before_cursor_execute", keep)
    return ran


# Accepted (R01), preferred (R03), escalated (R04), adjudicated (R07), escalated over a side's
# unreadable answer (R10), and a policy no model was asked about (R13).
KINDS = ("R01", "R03", "R04", "R07", "R10", "R13")


def test_a_decision_s_fact_is_made_from_its_record_as_a_recount_of_its_rows(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    store = Store()
    outcomes = {}
    for claim_id in KINDS:
        intake, policy, fraud, ruling, changes, _ = KNOWN[claim_id]
        loaded = loaded_claim(tmp_path, claim_id, **changes)
        record = make_record(sample_library, loaded, intake, policy, fraud, ruling)
        ran = statements(store, partial(store.record, record, None, loaded))
        # The rows just written are not read back: no statement joins the agents' outputs.
        assert [
            s for s in ran if s.lstrip().upper().startswith("SELECT") and "agent_outputs" in s
        ] == []
        assert record.resolution is not None
        outcomes[claim_id] = record.resolution.outcome
    # A failed attempt decides nothing (no fact), but keeps its claim file: decided next
    # without the file in hand, its stored fields are read. R15 was never kept at all.
    again = loaded_claim(tmp_path, "R14")
    reviewed = make_record(sample_library, again, *KNOWN["R01"][:3])
    store.record(reviewed.model_copy(update={"status": "failed"}), None, again)
    assert {row[0] for row in facts(store)} == set(KINDS)
    store.record(reviewed)
    store.record(make_record(sample_library, loaded_claim(tmp_path, "R15"), *KNOWN["R04"][:3]))

    assert set(outcomes.values()) >= {"ACCEPTED", "PREFERRED", "ESCALATED", "ADJUDICATED"}
    kept = facts(store)
    assert {row[0] for row in kept} == {*KINDS, "R14", "R15"}
    assert kept == recounted(store)
    by_claim = {row[0]: row for row in kept}
    assert by_claim["R04"][9] == "open" and by_claim["R01"][9] is None


def report_dump(found: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = found.model_dump(mode="json", exclude={"generated_at"})
    return dumped


def test_the_report_from_the_facts_is_the_report_over_the_whole_rows(known: Store) -> None:
    prices = PriceTable.model_validate(PRICES)
    for since in (None, date(2025, 11, 20)):
        summed = report(known, since, prices)
        assert summed.desk is not None  # the desk's, from escalations grouped by their days
        desk = desk_figures(known.escalation_clocks(), summed.desk.on)
        whole = build_report(load_rows(known, since), since, NOW, prices, desk)
        assert report_dump(summed) == report_dump(whole)
        assert whole.overall.claims > 0 and whole.escalations != []


def copy_claims(store: Store, copies: int) -> None:
    """Copy every decided claim's rows `copies` times, under new claim ids and keys."""
    with store.write() as conn:
        for table in metadata.sorted_tables:  # parents before children
            if table.name not in COPIED:
                continue
            rows = [dict(row) for row in conn.execute(select(table)).mappings()]
            for j in range(1, copies + 1):
                moved = [
                    {
                        column: (
                            f"{value}~{j}"
                            if column == "claim_id"
                            else value + j * COPY_STRIDE
                            if column in KEYS and value is not None
                            else value
                        )
                        for column, value in row.items()
                    }
                    for row in rows
                ]
                conn.execute(insert(table), moved)


def rows_fetched(store: Store, read: Callable[[], Any]) -> int:
    """The rows every SELECT `read` runs returns, each counted where it runs: the statement
    run again inside a count, on the same connection and parameters."""
    fetched = 0

    def count(conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        nonlocal fetched
        if not statement.lstrip().upper().startswith("SELECT"):
            return
        counting = conn.connection.dbapi_connection.cursor()
        counting.execute(f"SELECT count(*) FROM ({statement}) AS counted", parameters)
        fetched += int(counting.fetchone()[0])
        counting.close()

    event.listen(store.engine, "after_cursor_execute", count)
    try:
        read()
    finally:
        event.remove(store.engine, "after_cursor_execute", count)
    return fetched


def test_the_report_reads_no_more_rows_at_five_times_the_claims(
    known: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(from_facts, "LISTED", 3)  # a page of the claims left for a person
    small = rows_fetched(known, lambda: report(known))
    before = report(known)
    copy_claims(known, 4)
    large = rows_fetched(known, lambda: report(known))
    after = report(known)
    assert after.overall.claims == 5 * before.overall.claims == 65
    assert after.overall.escalated.count == 5 * before.overall.escalated.count
    assert len(after.escalations) == 3
    assert large <= small
