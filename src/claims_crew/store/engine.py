"""Which database the store is, and how to talk to it: SQLite by default, PostgreSQL by URL.

`CLAIMS_CREW_DATABASE_URL` (e.g. `postgresql+psycopg://claims@db.internal/claims`) selects
PostgreSQL; without it the store is one SQLite file in CLAIMS_CREW_HOME, with nothing to set up.

SQLite: the file is in WAL mode; connections are pooled and shared between threads (one thread
at a time); every connection waits up to BUSY_TIMEOUT_MS for the file's
lock, writes with synchronous=FULL and checks foreign keys. The driver's own transaction
handling is switched off and the store says BEGIN itself, so a write takes the database lock
first (`BEGIN IMMEDIATE`) and a read is one snapshot (`BEGIN`): pysqlite otherwise begins late,
and never for a SELECT. Every transaction first checks that the file is still the one the engine
opened: a connection keeps writing into a file deleted or replaced under it, and every such
write is lost when the process ends, so the store refuses instead (DatabaseUnavailable).

PostgreSQL: psycopg 3, a pool per process, pre-pinged so a restarted server costs one retry
rather than an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import QueuePool

from claims_crew.errors import DatabaseUnavailable
from claims_crew.settings import current

DATABASE_URL_VARIABLE = "CLAIMS_CREW_DATABASE_URL"
BUSY_TIMEOUT_MS = 30_000
# The execution option a transaction's BEGIN reads on SQLite (locked_transaction sets it).
BEGIN_MODE = "claims_crew_begin"


def configured_url() -> str | None:
    """The database named by the environment, if any (else the SQLite file is the store)."""
    url: str | None = current().claims_crew_database_url
    return url


def sqlite_url(path: Path) -> URL:
    return URL.create("sqlite", database=str(path))


def sqlite_files(path: Path) -> tuple[Path, ...]:
    """The database file and the files SQLite keeps beside it in WAL mode."""
    return (path, *(path.with_name(path.name + end) for end in ("-wal", "-shm")))


def is_postgres(url: URL | str) -> bool:
    return make_url(url).get_backend_name() == "postgresql"


def describe(url: URL) -> str:
    """The URL as shown to people: the password hidden."""
    return url.render_as_string(hide_password=True)


def open_engine(url: URL | str) -> Engine:
    """An engine for `url`, set up as the store needs it (see the module's docstring)."""
    url = make_url(url)
    backend = url.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(url)
    if backend == "postgresql":
        return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=20)
    raise ValueError(f"unsupported database {describe(url)!r}: use SQLite or PostgreSQL")


# Idle SQLite connections kept for the next transaction. Opening one (the file, its WAL index
# and the pragmas below) took 1.2 ms of CPU a transaction, and a claim makes about 15; more
# threads than this at once get connections of their own, closed when they are given back.
SQLITE_POOL_SIZE = 8


def _sqlite_engine(url: URL) -> Engine:
    # Pooled, where the store once opened a connection a transaction: the last connection closed
    # checkpoints the WAL back into the file, so the pool is emptied when the store is closed
    # or collected and when the process exits (base.py), and SQLite's own checkpoint every
    # 1,000 pages keeps the WAL short meanwhile. A pooled connection is used by one thread at a
    # time, which is what pysqlite's same-thread check is there to ensure.
    engine = create_engine(
        url,
        connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
        poolclass=QueuePool,
        pool_size=SQLITE_POOL_SIZE,
        max_overflow=-1,  # never wait for a connection: the file's lock does the waiting
    )

    file = FileIdentity(url.database)

    @event.listens_for(engine, "do_connect")
    def _before_connect(*_args: Any) -> None:
        file.check()  # SQLite would make a new, empty file where the store was

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the store says BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")  # kept by the file: a no-op once it is set
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()
        file.opened()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        file.check()
        mode = connection.get_execution_options().get(BEGIN_MODE, "")
        connection.exec_driver_sql(f"BEGIN {mode}".strip())

    return engine


class FileIdentity:
    """The SQLite file an engine first opened (its device and inode), checked before each new
    connection and each transaction. Nothing to check for a database in memory, which has no
    file to lose. A file made where a deleted one was may get its inode number, so the check
    before a new connection matters: it finds the path empty before SQLite would make that file."""

    def __init__(self, database: str | None) -> None:
        # Absolute now: a later change of working folder must not read as the file gone.
        self.path = Path(database).absolute() if database and database != ":memory:" else None
        self.identity: tuple[int, int] | None = None

    def _now(self) -> tuple[int, int] | None:
        assert self.path is not None
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (found.st_dev, found.st_ino)

    def opened(self) -> None:
        if self.path is not None and self.identity is None:
            self.identity = self._now()

    def check(self) -> None:
        """DatabaseUnavailable when the file opened first is no longer at its path."""
        if self.path is None or self.identity is None:
            return
        now = self._now()
        if now == self.identity:
            return
        what = "deleted or moved" if now is None else "replaced by another file"
        raise DatabaseUnavailable(
            f"the store {self.path} was {what} while this process had it open; nothing more is "
            "written to it. Put the store back (or point CLAIMS_CREW_HOME at it) and run again: "
            "a claim whose decision is not in it is reviewed again"
        )


@contextmanager
def locked_transaction(engine: Engine, lock_key: int | None) -> Iterator[Connection]:
    """A transaction that holds a lock from its first statement: SQLite's file lock (`BEGIN
    IMMEDIATE`), or on PostgreSQL the transaction-scoped advisory lock `lock_key` (None: no
    lock there; on SQLite the file's lock is taken whatever is asked)."""
    postgres = engine.dialect.name == "postgresql"
    with engine.connect() as conn:
        if not postgres:
            conn.execution_options(**{BEGIN_MODE: "IMMEDIATE"})
        with conn.begin():
            if postgres and lock_key is not None:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key})
            yield conn
