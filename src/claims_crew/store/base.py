"""What every part of the store shares: the file, its connections, its transactions, its clock.

Every call opens its own connection (WAL, synchronous=FULL, busy_timeout), so a Store can be
shared by the threads of a batch and by other processes using the same file. A write takes the
database lock first (`BEGIN IMMEDIATE`), so everything one call writes lands whole or not at all;
a read sees one consistent snapshot.

The topic classes (attempts, leases, the review queue, reviewers, the audit reads, the report
query) each inherit `StoreBase`, and `Store` composes them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from claims_crew import paths
from claims_crew.store.schema import migrate
from claims_crew.vocabulary import stamp, utc_now

BUSY_TIMEOUT_MS = 30_000


def default_path() -> Path:
    return paths.home() / "claims.sqlite"


class StoreBase:
    """One SQLite file, migrated on open; hands out connections and transactions."""

    def __init__(self, path: Path | None = None, clock: Callable[[], datetime] = utc_now) -> None:
        self.path = path or default_path()
        self.clock = clock
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")  # persistent: set once per file
            migrate(conn)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the database lock first (BEGIN IMMEDIATE)."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent snapshot for every query inside it."""
        with self._connect() as conn:
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("ROLLBACK")

    def now(self) -> str:
        return stamp(self.clock())
