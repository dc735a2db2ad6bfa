"""A rate limit shared by every process on the store: the model calls of all workers together.

A provider counts a key's requests whoever sends them, so four workers each counting their own
would send four times the cap. Each process asks the store before a model call instead
(`take_rate`): one short transaction that locks the limit's one row (`SELECT … FOR UPDATE` on
PostgreSQL, the file's lock on SQLite), reads the times of the calls let through in the last
window, and either adds this one or answers how long to wait. Like the per-process limit
(llms/rate_limit.py) it is a sliding window, not a refilling bucket: a bucket of N that refills
N a window lets up to 2N through in one window, a window's log never more than N.

The times are the database's clock on PostgreSQL, so workers on machines whose clocks differ
still count one window. A provider's 429 is recorded as `hold_until` (`hold_rate_off`), which
every process's next `take_rate` waits for: the 429 slows every worker, not only the one that
met it.

The same row counts the tokens of the calls that finished in the window (`spend_tokens`, as
`spent`: time and tokens), for a tokens-per-minute cap beside the requests (CLAIMS_CREW_MAX_TPM):
a call starts only while they are under it (llms/rate_limit.token_delay).
"""

from __future__ import annotations

import json
import time

from sqlalchemy import Connection, select, text, update

from claims_crew.llms.rate_limit import token_delay
from claims_crew.store import sql
from claims_crew.store.base import StoreBase
from claims_crew.store.outage import rides_out
from claims_crew.store.tables import rate_windows


def admit(
    taken: list[float], now: float, per_window: int, window_s: float
) -> tuple[list[float], float]:
    """The times still in the window with `now` added and 0.0, when fewer than `per_window`
    are in it; else those times unchanged and the seconds until the oldest leaves it."""
    kept = sorted(t for t in taken if now - t < window_s)
    if len(kept) < per_window:
        return [*kept, now], 0.0
    # Never 0, which would read as a call let through, even where rounding meets it.
    return kept, max(kept[-per_window] + window_s - now, 1e-6)


def _now(conn: Connection) -> float:
    """Seconds since the epoch by the database's clock (PostgreSQL), else this machine's."""
    if conn.dialect.name == "postgresql":
        return float(conn.scalar(text("SELECT extract(epoch FROM clock_timestamp())::float8")))
    return time.time()


Spent = list[tuple[float, int]]


def _locked_row(conn: Connection, name: str) -> tuple[list[float], Spent, float]:
    new = {"name": name, "taken": "[]", "spent": "[]", "hold_until": 0.0}
    sql.insert_new(conn, rate_windows, new, ["name"])
    row = conn.execute(
        select(rate_windows.c.taken, rate_windows.c.spent, rate_windows.c.hold_until)
        .where(rate_windows.c.name == name)
        .with_for_update()
    ).one()
    spent = [(float(t), int(n)) for t, n in json.loads(row.spent)]
    return [float(t) for t in json.loads(row.taken)], spent, float(row.hold_until)


class RateWindows(StoreBase):
    """Taking a place in a shared rate limit, and holding every process off after a 429."""

    @rides_out
    def take_rate(
        self,
        name: str,
        per_window: int | None,
        window_s: float,
        tokens_per_window: int | None = None,
        margin_s: float = 0.0,
    ) -> float:
        """Let one call through under the limit `name` (0.0), or say how many seconds to wait
        (nothing taken): at most `per_window` in any `window_s` seconds, and none while the
        window's tokens reach `tokens_per_window`, across processes (None: no such cap). A call
        keeps its place `margin_s` past the window (llms/rate_limit.py says why)."""
        # Only this row is locked: the store's write lock would queue every call behind
        # the claims' own writes.
        with self.write(exclusive=False) as conn:
            taken, spent, hold_until = _locked_row(conn, name)
            now = _now(conn)
            if hold_until > now:
                return hold_until - now
            if tokens_per_window is not None:
                _, delay = token_delay(spent, now, tokens_per_window, window_s)
                if delay:
                    return delay
            if per_window is None:  # a cap on tokens alone
                return 0.0
            kept, delay = admit(taken, now, per_window, window_s + margin_s)
            if not delay:
                conn.execute(
                    update(rate_windows)
                    .where(rate_windows.c.name == name)
                    .values(taken=json.dumps(kept))
                )
            return delay

    @rides_out
    def hold_rate_off(self, name: str, seconds: float) -> None:
        """No call under `name` from any process for `seconds` from now (a later hold stands)."""
        with self.write(exclusive=False) as conn:
            _, _, hold_until = _locked_row(conn, name)
            until = max(hold_until, _now(conn) + seconds)
            conn.execute(
                update(rate_windows).where(rate_windows.c.name == name).values(hold_until=until)
            )

    @rides_out
    def spend_tokens(self, name: str, tokens: int, window_s: float) -> None:
        """A call under `name` finished with `tokens`: counted in the window from now."""
        with self.write(exclusive=False) as conn:
            _, spent, _ = _locked_row(conn, name)
            now = _now(conn)
            kept = [(t, n) for t, n in spent if now - t < window_s] + [(now, tokens)]
            conn.execute(
                update(rate_windows)
                .where(rate_windows.c.name == name)
                .values(spent=json.dumps(kept))
            )
