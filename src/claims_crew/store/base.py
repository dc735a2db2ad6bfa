"""What every part of the store shares: its database, connections, transactions and clock.

The database is one SQLite file (the default) or PostgreSQL (CLAIMS_CREW_DATABASE_URL); see
engine.py. Either way:

- a write (`write()`) is one transaction that holds the store's write lock from its first
  statement: SQLite's file lock (`BEGIN IMMEDIATE`), or on PostgreSQL a transaction-scoped
  advisory lock that every writer takes. So everything one call writes lands whole or not at
  all, a read-check-write inside it never races another process, and the audit chain's appends
  (audit.py) come one after another, on both engines;
- a read (`read()`) is one consistent snapshot (REPEATABLE READ on PostgreSQL);
- the work queue's take (work_queue.py) is the one write that does not wait for the lock: on
  PostgreSQL it picks rows with FOR UPDATE SKIP LOCKED, so workers never queue behind each other;
- a lost database is waited for, up to CLAIMS_CREW_DATABASE_WAIT seconds, by opening the store
  and by the calls the claim routine and the workers make (outage.py).

The topic classes (recording, revalidation, leases, the review queue, reviewers, the audit
reads, the report query, the work queue) each inherit only `StoreBase`, and `Store` composes
them (store.py says why).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection, Engine
from sqlalchemy.engine import URL, make_url

from claims_crew import settings
from claims_crew.notices import tell
from claims_crew.store.audit_key import AuditKey, load_key
from claims_crew.store.engine import (
    configured_url,
    describe,
    is_postgres,
    locked_transaction,
    open_engine,
    sqlite_url,
)
from claims_crew.store.outage import RideOut, wait_from_environment
from claims_crew.store.schema import upgrade
from claims_crew.vocabulary import stamp, utc_now

# The advisory lock every PostgreSQL writer takes (any fixed 64-bit number; this one spells
# "claims").
WRITE_LOCK = 0x636C61696D73


# Every store's engine in this process, for a forked copy to drop their pooled connections.
_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()


def _forget_pooled_connections() -> None:
    for engine in list(_ENGINES):
        engine.dispose(close=False)  # SQLAlchemy's way for a child: the parent's, left open


if hasattr(os, "register_at_fork"):  # POSIX only; elsewhere no process is forked
    os.register_at_fork(after_in_child=_forget_pooled_connections)


def default_path() -> Path:
    return settings.home() / "claims.sqlite"


class StoreBase:
    """One database, brought up to the current schema on open; hands out transactions.

    `url` names the database; else `path` is an SQLite file; else CLAIMS_CREW_DATABASE_URL;
    else the SQLite file in CLAIMS_CREW_HOME.
    """

    def __init__(
        self,
        path: Path | None = None,
        clock: Callable[[], datetime] = utc_now,
        url: URL | str | None = None,
    ) -> None:
        if url is None and path is None:
            url = configured_url()
        if url is None:
            path = path or default_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            url = sqlite_url(path)
        self.url = make_url(url)
        self.postgres = is_postgres(self.url)
        # The SQLite file, if the store is one (shadows, copies and workers name it).
        self.path: Path | None = None if self.postgres else Path(self.url.database or "")
        self.clock = clock
        self.engine = open_engine(self.url)
        # Pooled connections are closed when the store is collected or the process exits, so the
        # last close checkpoints SQLite's WAL into the file; a forked copy of the process drops
        # them unclosed, as they are its parent's.
        weakref.finalize(self, self.engine.dispose)
        _ENGINES.add(self.engine)
        self.outage = RideOut(wait_from_environment(), self.where)
        self.outage.call(lambda: upgrade(self.engine))

    @property
    def where(self) -> str:
        """The store as shown to people: the SQLite file, or the URL without its password."""
        return str(self.path) if self.path is not None else describe(self.url)

    @contextmanager
    def write(self, *, exclusive: bool = True) -> Iterator[Connection]:
        """A write transaction holding the store's write lock from its start (see above).

        `exclusive=False` (PostgreSQL only) skips the lock, for a write that locks its own
        rows instead; on SQLite every write takes the file's lock whatever is asked.
        """
        with locked_transaction(self.engine, WRITE_LOCK if exclusive else None) as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction: one consistent snapshot for every query inside it."""
        with self.engine.connect() as conn:
            if self.postgres:
                conn.execution_options(isolation_level="REPEATABLE READ")
            transaction = conn.begin()
            try:
                yield conn
            finally:
                transaction.rollback()

    def close(self) -> None:
        """Close the pooled connections (a store is also closed when it is collected)."""
        self.engine.dispose()

    def now(self) -> str:
        return stamp(self.clock())

    def audit_key(self) -> AuditKey:
        """The key every audit entry is signed with (audit_key.py): CLAIMS_CREW_AUDIT_KEY, or the
        key file in CLAIMS_CREW_HOME, made on the first write. Read at each write that appends
        an entry: a file read, beside a decision's transaction."""
        key = load_key(create=True)
        if key.created:  # said once, where a person sees it: the key is theirs to keep
            tell(
                f"created the audit key {key.source} (mode 0600); keep a copy away from the "
                "database: the audit trail is checked, and extended, with it alone"
            )
        return key
