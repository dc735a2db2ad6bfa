"""The PostgreSQL the store's tests stand on: a fresh database per test (empty, or for the `engine`
fixture already at the store's schema), on a server that does what the work queue needs (row
locks that another transaction can skip)."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from claims_crew.store import HEAD, Store
from claims_crew.store.schema import current_revision
from tests.support.postgres import (
    NOT_INSTALLED,
    REQUIRE_ENV,
    TEMPLATE_ROWS,
    find_bin_dir,
    fresh_database,
    libpq_url,
    migrated_template,
    rows_in_tables,
    sqlalchemy_url,
    unavailable,
)

# The databases the runs of test_a_fresh_database_is_empty were given.
SEEN: set[str] = set()
# Those the runs of test_the_engine_s_database_starts_migrated_and_holds_no_rows were given.
SEEN_MIGRATED: set[str] = set()

on_postgres = pytest.mark.parametrize("engine", ["postgresql"], indirect=True)


def _revision(url: str) -> str | None:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return current_revision(conn)
    finally:
        engine.dispose()


@on_postgres
@pytest.mark.parametrize("run", ["first", "second"])
def test_the_engine_s_database_starts_migrated_and_holds_no_rows(engine: str, run: str) -> None:
    """At the current schema before any Store() opens it, with no store's rows in it (no claim,
    entry, reviewer or audit head); and each test's own: a reviewer one run adds, the other
    would see were the copy shared."""
    url = os.environ["CLAIMS_CREW_DATABASE_URL"]
    assert _revision(url) == HEAD
    rows = rows_in_tables(url)
    assert {"claim_files", "decisions", "audit_log", "reviewers"} <= set(rows)
    assert {table: n for table, n in rows.items() if n} == TEMPLATE_ROWS == {"alembic_version": 1}
    Store().add_reviewer(f"reviewer-{run}")
    name = str(make_url(url).database)
    assert name not in SEEN_MIGRATED
    SEEN_MIGRATED.add(name)


@on_postgres
def test_postgres_url_beside_the_engine_is_still_empty(engine: str, postgres_url: str) -> None:
    assert postgres_url != os.environ["CLAIMS_CREW_DATABASE_URL"]
    assert rows_in_tables(postgres_url) == {}
    assert _revision(postgres_url) is None


@on_postgres
@pytest.mark.empty_database
def test_a_test_of_a_new_store_gets_an_empty_database(engine: str) -> None:
    url = os.environ["CLAIMS_CREW_DATABASE_URL"]
    assert rows_in_tables(url) == {}
    Store()
    assert _revision(url) == HEAD


@pytest.mark.parametrize("run", ["first", "second"])
def test_a_fresh_database_is_empty(postgres_url: str, run: str) -> None:
    """Each run leaves a table behind: were the database shared, the other run would see it."""
    name = make_url(postgres_url).database
    with psycopg.connect(libpq_url(postgres_url), autocommit=True) as conn:
        assert conn.execute("SELECT current_database()").fetchone() == (name,)
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
        ).fetchall()
        assert tables == []
        conn.execute("CREATE TABLE left_behind (id integer PRIMARY KEY)")
    assert name not in SEEN
    SEEN.add(str(name))


def test_the_url_is_a_sqlalchemy_url(postgres_url: str) -> None:
    assert postgres_url.startswith("postgresql+psycopg://")
    engine = create_engine(postgres_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE claims (id integer PRIMARY KEY, state text)"))
            conn.execute(text("INSERT INTO claims VALUES (1, 'pending')"))
        with engine.connect() as conn:
            assert conn.execute(text("SELECT state FROM claims")).scalar_one() == "pending"
            assert conn.execute(text("SHOW server_encoding")).scalar_one() == "UTF8"
    finally:
        engine.dispose()


def test_a_locked_row_is_skipped_by_another_connection(postgres_url: str) -> None:
    url = libpq_url(postgres_url)
    with psycopg.connect(url, autocommit=True) as setup:
        setup.execute("CREATE TABLE queue (id integer PRIMARY KEY)")
        setup.execute("INSERT INTO queue VALUES (1), (2), (3)")
    with psycopg.connect(url) as first, psycopg.connect(url) as second:
        taken = first.execute("SELECT id FROM queue WHERE id = 1 FOR UPDATE").fetchall()
        assert taken == [(1,)]
        left = second.execute("SELECT id FROM queue ORDER BY id FOR UPDATE SKIP LOCKED")
        assert left.fetchall() == [(2,), (3,)]
        second.rollback()
        # The row is really held, not merely skipped by chance.
        with pytest.raises(psycopg.errors.LockNotAvailable):
            second.execute("SELECT id FROM queue WHERE id = 1 FOR UPDATE NOWAIT")
        second.rollback()
        first.commit()
        after = second.execute("SELECT id FROM queue ORDER BY id FOR UPDATE SKIP LOCKED")
        assert after.fetchall() == [(1,), (2,), (3,)]


def test_a_database_is_dropped_afterwards_even_while_in_use(postgres_server: str) -> None:
    with fresh_database(postgres_server) as url:
        name = make_url(url).database
        still_open = psycopg.connect(libpq_url(url))
        still_open.execute("SELECT 1")
    with psycopg.connect(libpq_url(postgres_server), autocommit=True) as admin:
        found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchall()
    assert found == []
    with pytest.raises(psycopg.OperationalError):
        still_open.execute("SELECT 1")
    still_open.close()


def test_the_newest_installed_version_is_found(tmp_path: Path) -> None:
    for version in ("9.6", "15", "16"):
        folder = tmp_path / version / "bin"
        folder.mkdir(parents=True)
        (folder / "initdb").touch()
        (folder / "pg_ctl").touch()
    (tmp_path / "17" / "bin").mkdir(parents=True)  # a leftover folder without the programs
    assert find_bin_dir(path="", roots=[tmp_path]) == tmp_path / "16" / "bin"
    assert find_bin_dir(path="", roots=[tmp_path / "absent"]) is None


def test_a_missing_postgres_skips_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="initdb not found"):
        unavailable(NOT_INSTALLED)


def test_a_missing_postgres_fails_where_it_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="initdb not found"):
        unavailable(NOT_INSTALLED)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (
            "postgresql://app@db.internal:5433/claims",
            "postgresql+psycopg://app@db.internal:5433/claims",
        ),
        (
            "postgresql+psycopg://app:pw@127.0.0.1/claims",
            "postgresql+psycopg://app:pw@127.0.0.1/claims",
        ),
    ],
)
def test_a_given_server_url_gets_the_psycopg_driver(given: str, expected: str) -> None:
    assert sqlalchemy_url(given) == expected


def test_a_template_a_first_store_wrote_rows_in_is_refused(
    postgres_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were opening a store to write a row of its own (a key, an id), every copy would share it."""

    class SeedingStore(Store):
        def __init__(self, url: str) -> None:
            super().__init__(url=url)
            self.add_reviewer("seeded")

    monkeypatch.setattr("claims_crew.store.Store", SeedingStore)
    with (
        pytest.raises(RuntimeError, match="'reviewers': 1"),
        migrated_template(postgres_server, tmp_path),
    ):
        pass
