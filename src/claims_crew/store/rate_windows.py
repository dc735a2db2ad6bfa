"""The rows of the rate limits shared by every process on the store (llms/rate_limit.py decides).

A provider counts a key's requests whoever sends them, so the processes on one store count their
model calls in one row per limit: the times of the calls let through (`taken`), the time and
tokens of the calls that finished (`spent`), and until when a provider's 429 holds every
process off (`hold_until`). What a call may do is the rate limit's to say; the store's part is
that each change is made on the row as locked, in one short transaction (`SELECT … FOR UPDATE`
on PostgreSQL, the file's lock on SQLite), so two processes never count from the same state.

The times are the database's clock on PostgreSQL, so workers on machines whose clocks differ
still count one window. A service client's calls to the API are counted the same way, in a row
of their own (api/guard.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, select, text, update

from claims_crew.store import sql
from claims_crew.store.base import StoreBase
from claims_crew.store.outage import rides_out
from claims_crew.store.tables import rate_windows


@dataclass(frozen=True)
class RateWindow:
    """A limit's row as locked, and the time it was read at."""

    taken: tuple[float, ...]
    spent: tuple[tuple[float, int], ...]
    hold_until: float
    now: float


# What a change writes back to the row: taken, spent, hold_until.
Counts = tuple[Sequence[float], Sequence[tuple[float, int]], float]
# A change to a limit's row: what to write (None: nothing) and the answer to hand back.
WindowChange = Callable[[RateWindow], tuple[Counts | None, float]]


def _now(conn: Connection) -> float:
    """Seconds since the epoch by the database's clock (PostgreSQL), else this machine's."""
    if conn.dialect.name == "postgresql":
        return float(conn.scalar(text("SELECT extract(epoch FROM clock_timestamp())::float8")))
    return time.time()


def _locked_row(conn: Connection, name: str) -> RateWindow:
    new = {"name": name, "taken": "[]", "spent": "[]", "hold_until": 0.0}
    sql.insert_new(conn, rate_windows, new, ["name"])
    row = conn.execute(
        select(rate_windows.c.taken, rate_windows.c.spent, rate_windows.c.hold_until)
        .where(rate_windows.c.name == name)
        .with_for_update()
    ).one()
    return RateWindow(
        taken=tuple(float(t) for t in json.loads(row.taken)),
        spent=tuple((float(t), int(n)) for t, n in json.loads(row.spent)),
        hold_until=float(row.hold_until),
        now=_now(conn),
    )


class RateWindows(StoreBase):
    """The shared rate limits' rows, each changed on the row as locked."""

    @rides_out
    def change_rate_window(self, name: str, change: WindowChange) -> float:
        """Apply `change` to the row of limit `name` as locked (made empty the first time),
        write what it returns, and hand back its answer."""
        # Only this row is locked: the store's write lock would queue every call behind
        # the claims' own writes.
        with self.write(exclusive=False) as conn:
            counts, answer = change(_locked_row(conn, name))
            if counts is not None:
                taken, spent, hold_until = counts
                conn.execute(
                    update(rate_windows)
                    .where(rate_windows.c.name == name)
                    .values(
                        taken=json.dumps(list(taken)),
                        spent=json.dumps([list(s) for s in spent]),
                        hold_until=hold_until,
                    )
                )
            return answer
