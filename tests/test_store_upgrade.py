"""A store made before the migrations moved to Alembic is upgraded in place, and loses nothing.

tests/data/store-before-alembic.sqlite was made by claims-crew as it was then (hand-written
migrations 0001_initial … 0008_validations_and_superseded_rows, recorded in schema_migrations):
a scripted run of three copies of the water claim, S-101 accepted, S-102 escalated for low
confidence, S-103 escalated when the adjudicator had no usable answer; then reviewer ana (token
below) decided S-102 "covered". Four audit entries. It is an SQLite file only, as every store
was then, so these tests run on SQLite alone.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import HEAD, Review, Store, audit, audit_key
from claims_crew.store.engine import sqlite_url
from claims_crew.store.schema import current_revision
from claims_crew.store.tables import metadata
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded
from tests.support.store_rows import table_rows

OLD_STORE = ROOT / "tests" / "data" / "store-before-alembic.sqlite"
ANA_TOKEN = "I7YT_qnIGqSC1Z_w5ToD9bmrLnD7lMHn4_EI4WMRnus"
ANA_REVIEW = Review(
    id=1,
    escalation_id=1,
    claim_id="S-102",
    reviewer="ana",
    decision="covered",
    reason="Leak confirmed by the plumber's invoice.",
    decided_at="2026-12-01T15:54:44.980325Z",
    audit_seq=4,
)


@pytest.fixture
def old_store() -> Path:
    """A copy of the old store where every command finds it: claims.sqlite in CLAIMS_CREW_HOME."""
    from claims_crew.store.base import default_path

    path = default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(OLD_STORE, path)
    return path


def _bare(path: Path) -> Any:
    return create_engine(sqlite_url(path), poolclass=NullPool)


def test_the_old_store_is_stamped_and_upgraded_in_place(old_store: Path) -> None:
    before = table_rows(old_store)
    assert "alembic_version" not in _tables(old_store)

    store = Store()

    assert store.path == old_store
    with store.engine.connect() as conn:
        assert current_revision(conn) == HEAD
    after = table_rows(old_store)
    # Every row it had is there as it was, in the columns it had; the tables added since are
    # new and empty, but for /metrics' totals and the report's facts, made from the rows it had.
    assert {
        name: [{k: row[k] for k in before[name][0]} for row in after[name]] if before[name] else []
        for name in before
    } == before
    made = {"metric_totals", "report_facts", "report_shapes"}
    assert all(after[name] == [] for name in set(after) - set(before) - made)
    counted = [row["n"] for row in after["metric_totals"] if row["figure"] == "decisions"]
    assert sum(counted) == len(before["decisions"]) > 0
    facts = [(row["claim_id"], row["outcome"]) for row in after["report_facts"]]
    assert facts == [(row["claim_id"], row["outcome"]) for row in before["decisions"]]
    assert set(after) == set(metadata.tables)


def test_the_upgraded_store_verifies_and_reads_back_as_before(old_store: Path) -> None:
    verified = CliRunner().invoke(main, ["audit", "verify"])
    assert verified.exit_code == 0, verified.output
    assert "ok: 4 entries, chain intact." in verified.output

    store = Store()
    assert [(d.claim_id, d.outcome, d.answer, d.decided_by) for d in store.decisions()] == [
        ("S-101", "ACCEPTED", "covered", "auto"),
        ("S-102", "ESCALATED", None, "auto"),
        ("S-103", "ESCALATED", None, "adjudicator"),
    ]
    assert store.reviews() == [ANA_REVIEW]
    decided = store.escalation("S-102")
    assert (decided.state, decided.decided_by, decided.decision) == ("decided", "ana", "covered")
    assert [e.claim_id for e in store.open_escalations()] == ["S-103"]
    assert store.escalation("S-103").reason_codes == ["adjudicator_invalid"]
    assert store.sign_in(ANA_TOKEN, "test") == "ana"
    record = store.claim_record("S-101")
    assert record is not None and record.resolution is not None
    assert record.resolution.outcome == "ACCEPTED"
    assert [e.seq for e in store.audit_entries("S-102")] == [2, 4]


def test_new_decisions_extend_the_old_chain(
    old_store: Path, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "later", "C-3000")

    recorded = store.record(record_for(loaded, sample_library), None, loaded)
    review = store.decide(
        "S-103", "not_covered", "Gradual seepage, as 7.1 says.", "ana", rules=DeskRules()
    )

    assert recorded.decided and recorded.attempt_id == 4
    assert [e.seq for e in store.audit_entries("C-3000")] == [5]
    assert (review.id, review.audit_seq) == (2, 6)
    verdict = store.verify_audit()
    assert verdict.ok and verdict.entries == 6


def test_old_entries_stay_unsigned_and_an_unsigned_entry_after_a_signed_one_fails(
    old_store: Path, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """Entries written before entries were signed keep resting on the chain and the
    checkpoints, and verify says so; the first new entry is signed, and from then on an entry
    without a signature is one written without the key."""
    verified = CliRunner().invoke(main, ["audit", "verify", "--json"])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.stdout) == {
        "ok": True,
        "entries": 4,
        "first_bad": None,
        "problem": None,
        "unsigned": 4,
    }
    store = Store()
    loaded = water_loaded(tmp_path / "later", "C-3000")
    store.record(record_for(loaded, sample_library), None, loaded)
    [entry] = store.audit_entries("C-3000")
    assert entry.key_id == audit_key.load_key().key_id
    verified = CliRunner().invoke(main, ["audit", "verify"])
    assert verified.exit_code == 0, verified.output
    assert verified.stdout == (
        "ok: 5 entries, chain intact. The first 4 were written before entries were signed: "
        "they rest on the chain and on signed checkpoints alone.\n"
    )
    # An unsigned entry appended after the signed one, chained and hashed as the old ones were.
    with store.write() as conn:
        head = conn.execute(text("SELECT seq, hash FROM audit_head")).one()
        body = json.loads(
            conn.execute(text("SELECT body FROM audit_log WHERE seq = 5")).scalar_one()
        )
        del body["key_id"]
        body.update(seq=6, prev=head.hash, claim_id="C-3001")
        digest = audit.entry_hash(body)
        conn.execute(
            text(
                "INSERT INTO audit_log (seq, claim_id, at, body, hash) "
                "VALUES (6, 'C-3001', :at, :body, :hash)"
            ),
            {"at": body["at"], "body": audit.canonical(body), "hash": digest},
        )
        conn.execute(text("UPDATE audit_head SET seq = 6, hash = :hash"), {"hash": digest})
    verdict = store.verify_audit()
    assert not verdict.ok and verdict.first_bad == 6
    assert verdict.problem == (
        "entry 6 is not signed, but the entries before it are: it was written without the audit key"
    )


def test_the_upgraded_schema_is_the_current_one(old_store: Path) -> None:
    """What the upgrade leaves differs from a new store only where SQLite reads old DDL
    differently: the old tables declared `id INTEGER PRIMARY KEY` and `name TEXT PRIMARY KEY`
    without NOT NULL (reflected as nullable; for an INTEGER key SQLite never stores NULL, and
    the store never writes a NULL key), and `at REAL` where tables.py says Float (the same
    type to SQLite). The hand-written migrations' own table, schema_migrations, stays."""
    Store()
    with _bare(old_store).connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": False}
        )
        found = compare_metadata(context, metadata)
    left = []
    for difference in found:
        if isinstance(difference, tuple):
            if difference[0] == "remove_table" and difference[1].name == "schema_migrations":
                continue
            left.append(difference)
            continue
        [change] = difference
        table, column = metadata.tables[change[2]], change[3]
        if change[0] == "modify_nullable" and table.c[column].primary_key:
            continue
        if change[0] == "modify_type" and (change[2], column) == ("sign_in_attempts", "at"):
            continue
        left.append(change)
    assert left == []


def test_a_store_stopped_before_0008_gets_its_validations_from_the_audit_entries(
    old_store: Path,
) -> None:
    """A store the hand-written migrations 0001-0007 made: 0008 only added `validations` and
    `superseded`, so the old store without them (and without 0008's name) is exactly that, as
    its tables and indexes show when built from the old migration list."""
    written = table_rows(old_store)["validations"]
    engine = _bare(old_store)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE validations"))
        conn.execute(text("DROP TABLE superseded"))
        conn.execute(
            text("DELETE FROM schema_migrations WHERE name = :name"),
            {"name": "0008_validations_and_superseded_rows"},
        )
    engine.dispose()

    store = Store()

    backfilled = table_rows(old_store)["validations"]
    # The decisions' own record of what they stood on, from their audit entries; the models
    # map is the same JSON, written there by other code with other spacing.
    assert [{**row, "models": json.loads(row["models"])} for row in backfilled] == [
        {**row, "models": json.loads(row["models"])} for row in written
    ]
    assert table_rows(old_store)["superseded"] == []
    assert store.verify_audit().ok
    assert [s.claim_id for s in store.standings()] == ["S-101", "S-102", "S-103"]


def _tables(path: Path) -> set[str]:
    from sqlalchemy import inspect

    engine = _bare(path)
    try:
        with engine.connect() as conn:
            return set(inspect(conn).get_table_names())
    finally:
        engine.dispose()
