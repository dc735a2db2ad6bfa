"""Riding out a lost database: a PostgreSQL server restarted, failed over or briefly unreachable.

Connections are checked before use (engine.py: pool_pre_ping), so one that died with its server
is replaced, not used. A database that cannot be reached at all is waited for: the store's calls
that the claim routine and the queue workers make (marked `@rides_out`) are tried again, waiting
FIRST_WAIT_S, then twice as long each time up to LONGEST_WAIT_S, until the database answers or
has been gone for CLAIMS_CREW_DATABASE_WAIT seconds (default 300). Then they raise
DatabaseUnavailable, whose one line names the database, how long, and the last error.

A call is tried again from its start. Each is one transaction, which the lost server rolled
back, so nothing of it was written; each is also safe to repeat should its commit have landed
just before its answer was lost (a lease taken again by its holder, a read, a delete, a claim's
result whose decision the store writes once at most; at worst an attempt or a run is recorded
twice).

The outage's clock is the store's and its threads share it: once the database has been gone
past the bound, every call gives up at once, rather than each waiting the bound again; the first
call that gets through starts it afresh.

Only errors that say the connection or the server is gone count (a connection psycopg could not
open or lost, the server's shutdown codes, or one SQLAlchemy marked invalidated). An SQL error,
and anything on SQLite, whose file is not lost this way, is raised at once, as before.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

import psycopg
from sqlalchemy.exc import DBAPIError, DisconnectionError

from claims_crew.errors import DatabaseUnavailable
from claims_crew.notices import tell
from claims_crew.settings import current

WAIT_VARIABLE = "CLAIMS_CREW_DATABASE_WAIT"
FIRST_WAIT_S = 0.2
LONGEST_WAIT_S = 5.0
# SQLSTATEs of a server going away: admin shutdown, crash shutdown, not accepting connections
# yet (starting up). Class 08 is every connection exception.
_SERVER_GONE = ("57P01", "57P02", "57P03")


T = TypeVar("T")
P = ParamSpec("P")


def lost_database(exc: BaseException) -> bool:
    """The error says the database cannot be reached, not that a statement was wrong."""
    if isinstance(exc, DisconnectionError):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    if not isinstance(exc.orig, psycopg.OperationalError):
        return False
    state = exc.orig.sqlstate
    # No SQLSTATE: the client's own failure to connect or to read the server's answer.
    return state is None or state.startswith("08") or state in _SERVER_GONE


def wait_from_environment() -> float:
    """CLAIMS_CREW_DATABASE_WAIT: seconds to wait for a lost database (0: not at all)."""
    return float(current().claims_crew_database_wait)


def error_line(exc: BaseException) -> str:
    """The driver's own words for the error, first line only (psycopg's run to several)."""
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


class RideOut:
    """One store's waiting for its lost database: how long at most, and since when it is gone."""

    def __init__(self, wait_s: float, where: str) -> None:
        self.wait_s = wait_s
        self.where = where
        self._lock = threading.Lock()
        self._gone_since: float | None = None  # time.monotonic() of the first failed call

    def call(self, work: Callable[[], T]) -> T:
        """`work()`, tried again while the database is lost, up to the bound."""
        pause = FIRST_WAIT_S
        while True:
            try:
                result = work()
            except Exception as exc:
                if not lost_database(exc):
                    raise
                left = self._failed(exc)
                if left <= 0:
                    raise DatabaseUnavailable(
                        f"the database {self.where} has been unreachable for more than "
                        f"{self.wait_s:g} s ({WAIT_VARIABLE}); giving up: {error_line(exc)}"
                    ) from exc
                time.sleep(min(pause, left))
                pause = min(pause * 2, LONGEST_WAIT_S)
            else:
                self._answered()
                return result

    def _failed(self, exc: BaseException) -> float:
        """Note a failed call; the seconds left to wait."""
        now = time.monotonic()
        with self._lock:
            if self._gone_since is None:
                self._gone_since = now
                tell(
                    f"database {self.where} unreachable ({error_line(exc)}); trying again for "
                    f"up to {self.wait_s:g} s"
                )
            return self.wait_s - (now - self._gone_since)

    def _answered(self) -> None:
        with self._lock:
            if self._gone_since is not None:
                gone = time.monotonic() - self._gone_since
                self._gone_since = None
                tell(f"database {self.where} reachable again after {gone:.1f} s")


class _Riding(Protocol):
    outage: RideOut


S = TypeVar("S", bound=_Riding)


def rides_out(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
    """A store method tried again while its database is lost (see the module's docstring)."""

    def riding(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.outage.call(lambda: method(self, *args, **kwargs))

    functools.update_wrapper(riding, method)
    return riding
