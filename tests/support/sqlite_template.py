"""A test's SQLite store already at the current schema: a copy of one file migrated per session.

A first `Store()` on a new SQLite file runs every migration (store/migrations/versions/, some of
them copying a table over in SQLite's batch mode): 0.13-0.16 s of CPU. In one run of the tests
not on PostgreSQL, 685 first `Store()`s paid it, each in its own home; copying the file that a
first `Store()` left (390 KB) takes 0.3 ms. So `sqlite_template` (session, so once per xdist
worker) lets a first `Store()` migrate a file in a home of its own, and `home_folder` puts a copy
of it where `Store()` looks in each test's CLAIMS_CREW_HOME (store/base.default_path), as the
PostgreSQL tests get a copy of postgres.py's template database. A test of what a first `Store()`
does to a new database is marked `empty_database` (postgres.EMPTY_DATABASE) and gets no file; a
store at a path of the test's own is still migrated by its first `Store()` (169 in that run).
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.postgres import EMPTY_DATABASE, refuse_other_rows

STORE_FILE = "claims.sqlite"  # store/base.default_path's name, checked by the template's test


def rows_in(path: Path) -> dict[str, int]:
    """How many rows each table of the SQLite file holds, the empty ones left out."""
    with closing(sqlite3.connect(path)) as conn:  # sqlite3's own `with` would leave it open
        tables = [
            str(row[0])
            for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        counts = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    return {table: n for table, n in counts.items() if n}


def migrated_file(home: Path) -> Path:
    """Let a first `Store()` migrate a new SQLite file in `home` (its CLAIMS_CREW_HOME, so no
    setting of the developer's is read), close it, and return the file, checked."""
    from claims_crew.store import Store  # the store's import, only for the sessions that use it

    with pytest.MonkeyPatch.context() as env:  # undone before the tests run
        env.setenv("CLAIMS_CREW_HOME", str(home))
        env.delenv("CLAIMS_CREW_DATABASE_URL", raising=False)
        store = Store()
        store.close()
    assert store.path is not None, store.where
    return checked(store.path)


def checked(path: Path) -> Path:
    """`path`, refused as a template unless it is whole and holds only the rows a template may
    (postgres.TEMPLATE_ROWS). With every connection closed SQLite has checkpointed its
    write-ahead log into the file and removed the log: a log left beside it would hold part of
    the schema that a copy of the file lacks."""
    beside = sorted(p.name for p in path.parent.iterdir() if p != path)
    if path.name != STORE_FILE or beside:
        raise RuntimeError(f"a first Store() left {path.name} and {beside}, not {STORE_FILE} alone")
    refuse_other_rows(rows_in(path), "file")
    return path


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite store file at the current schema, holding no rows but its revision."""
    return migrated_file(tmp_path_factory.mktemp("sqlite-template-home"))


@pytest.fixture
def home_folder(tmp_path: Path, request: pytest.FixtureRequest, sqlite_template: Path) -> Path:
    """The test's CLAIMS_CREW_HOME (conftest.py's `_private_home` sets it): holding a copy of
    the template where `Store()` opens its SQLite file, or nothing at all for a test marked
    `empty_database`."""
    home = tmp_path / "home"
    if request.node.get_closest_marker(EMPTY_DATABASE) is None:
        home.mkdir()
        shutil.copyfile(sqlite_template, home / STORE_FILE)
    return home
