"""One requests-per-minute limit shared by every model call of a run.

A provider's limit counts the requests of a key, whatever sent them: every claim, agent and
thread of a run together. CrewAI's own `max_rpm` keeps a counter per agent (or per crew, and a
crew is built per claim), so sixteen claims at once would each get the whole allowance. This
limit is one object for the run, asked before each model call (llms/cutoff.py).

It keeps the times of the calls let through in the last window, and lets one more through only
while fewer than `per_window` are in it, so no window of `window_s` seconds ever holds more.
A call that must wait waits on the claim's `stop`, so a claim given up at its deadline stops
waiting at once. The clock and the wait are parameters, so tests need not sleep.

A tokens-per-minute cap (CLAIMS_CREW_MAX_TPM) stands beside it in the same window: the
prompt plus completion tokens of the calls that finished in it, as the claim's record counts
them (`spend`, from the ledger's events). A call starts only while they are under the cap. A
call's tokens are known only once it has finished, so calls already under way when the cap is
reached finish, and can take the window past it; none starts after that until it is back
under.

A place is held a little longer than the window (`margin_s`; the run gives min(2 s, a
twentieth of the window), settings/limits.py). A provider counts requests as they arrive, some time
after their place was taken: little where the place is taken at the wire (wire_gate.py), up to
a second where it is taken before CrewAI builds the request (the pre-call hook, for clients
without a gate). Two requests let through exactly a window apart can then arrive less than a
window apart, and a batch let through at the window's edge land in the same provider window as
the one before it; the margin keeps that spread inside the cap.

`RateLimit` counts one process's calls. Processes that share a PostgreSQL store count together
(`SharedRateLimit`): each call takes its place in the limit's row in the store, which keeps the
row (store/rate_windows.py) and applies each change here (`take_shared`, `spent_shared`,
`held_shared`) to the row as locked, in one transaction, so every process counts one window.
Queue workers on one store usually share one provider key, so the cap is theirs together. On
SQLite the count stays per process (`rate_limit_for`): every take would be a write, and SQLite
has one writer for the whole file, so model calls would queue behind the claims' own records. A
run's `--workers` share the cap out instead (limits.rpm_share).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple, Protocol

Clock = Callable[[], float]
# Waits up to the seconds given; True when `stop` was set meanwhile.
Wait = Callable[[threading.Event, float], bool]


def _wait(stop: threading.Event, seconds: float) -> bool:
    return stop.wait(seconds)


def token_delay(
    spent: Iterable[tuple[float, int]], now: float, per_window: int, window_s: float
) -> tuple[list[tuple[float, int]], float]:
    """The (time, tokens) still in the window, and 0.0 while their tokens are under
    `per_window`; else the seconds until enough of them leave it that they are."""
    kept = sorted((t, n) for t, n in spent if now - t < window_s)
    total = sum(n for _, n in kept)
    if total < per_window:
        return kept, 0.0
    for at, tokens in kept:  # oldest first: when enough have left the window
        total -= tokens
        if total < per_window:
            return kept, max(at + window_s - now, 1e-6)
    return kept, window_s  # not reached: an empty window holds no tokens


class RateLimit:
    """At most `per_window` calls in any `window_s` seconds (a sliding window), and calls
    started only while the window's tokens are under `tokens_per_window`; either may be None."""

    def __init__(
        self,
        per_window: int | None,
        window_s: float = 60.0,
        clock: Clock = time.monotonic,
        wait: Wait = _wait,
        tokens_per_window: int | None = None,
        margin_s: float = 0.0,
    ) -> None:
        if per_window is None and tokens_per_window is None:
            raise ValueError("a rate limit needs a cap on calls or on tokens")
        if (per_window or 1) < 1 or (tokens_per_window or 1) < 1 or not window_s > 0:
            raise ValueError("a rate limit needs at least one call in a window of some seconds")
        self.per_window = per_window
        self.tokens_per_window = tokens_per_window
        self.window_s = window_s
        self.margin_s = max(0.0, margin_s)
        self._spent: list[tuple[float, int]] = []
        self._clock = clock
        self._wait = wait
        self._lock = threading.Lock()
        self._let_through: deque[float] = deque()
        self._waiting = 0
        self._hold_until = float("-inf")

    @property
    def label(self) -> str:
        """ "60/min", "60/min, 40000 tokens/min", or "3 per 2 s" for another window."""
        per = "/min" if self.window_s == 60 else f" per {self.window_s:g} s"
        caps = [f"{self.per_window}{per}"] if self.per_window is not None else []
        if self.tokens_per_window is not None:
            caps.append(f"{self.tokens_per_window} tokens{per}")
        return ", ".join(caps)

    @property
    def waiting(self) -> int:
        """Calls held back now."""
        with self._lock:
            return self._waiting

    @property
    def in_window(self) -> int:
        """Calls let through in the last window."""
        with self._lock:
            now = self._clock()
            return sum(1 for t in self._let_through if now - t < self.window_s)

    def try_take(self) -> float:
        """Let one call through now and return 0, or return the seconds until a place frees
        (and let nothing through)."""
        with self._lock:
            now = self._clock()
            if self._hold_until > now:
                return self._hold_until - now
            if self.tokens_per_window is not None:
                self._spent, delay = token_delay(
                    self._spent, now, self.tokens_per_window, self.window_s
                )
                if delay:
                    return delay
            held = self.window_s + self.margin_s  # how long a call keeps its place
            while self._let_through and now - self._let_through[0] >= held:
                self._let_through.popleft()
            if self.per_window is None or len(self._let_through) < self.per_window:
                self._let_through.append(now)
                return 0.0
            # Never 0, which would read as a call let through, even where rounding meets it.
            return max(self._let_through[0] + held - now, 1e-6)

    @property
    def counts_tokens(self) -> bool:
        return self.tokens_per_window is not None

    def spend(self, tokens: int) -> None:
        """A call finished with `tokens` (prompt plus completion): counted in the window."""
        if self.tokens_per_window is not None and tokens > 0:
            with self._lock:
                self._spent.append((self._clock(), tokens))

    def hold_off(self, seconds: float) -> None:
        """Let no call through for `seconds` from now: the provider answered 429."""
        with self._lock:
            self._hold_until = max(self._hold_until, self._clock() + seconds)

    def acquire(self, stop: threading.Event) -> bool:
        """Wait until a call may go; False, with nothing taken, once `stop` is set first."""
        if stop.is_set():
            return False
        delay = self.try_take()
        if not delay:
            return True
        with self._lock:
            self._waiting += 1
        try:
            while delay:
                if self._wait(stop, delay):
                    return False
                delay = self.try_take()
            return True
        finally:
            with self._lock:
                self._waiting -= 1


def admit(
    taken: Iterable[float], now: float, per_window: int, window_s: float
) -> tuple[list[float], float]:
    """The times still in the window with `now` added and 0.0, when fewer than `per_window`
    are in it; else those times unchanged and the seconds until the oldest leaves it."""
    kept = sorted(t for t in taken if now - t < window_s)
    if len(kept) < per_window:
        return [*kept, now], 0.0
    # Never 0, which would read as a call let through, even where rounding meets it.
    return kept, max(kept[-per_window] + window_s - now, 1e-6)


class Window(Protocol):
    """A shared limit's counts as the store read them, and the database's time then."""

    @property
    def taken(self) -> Sequence[float]: ...

    @property
    def spent(self) -> Sequence[tuple[float, int]]: ...

    @property
    def hold_until(self) -> float: ...

    @property
    def now(self) -> float: ...


class Counted(NamedTuple):
    """A shared limit's counts as a change leaves them, for the store to write."""

    taken: Sequence[float]
    spent: Sequence[tuple[float, int]]
    hold_until: float


def take_shared(
    window: Window,
    per_window: int | None,
    window_s: float,
    tokens_per_window: int | None = None,
    margin_s: float = 0.0,
) -> tuple[Counted | None, float]:
    """One call let through (the counts with it, and 0.0), or the seconds to wait (nothing to
    write): `RateLimit.try_take`'s rule, on the counts every process shares."""
    now = window.now
    if window.hold_until > now:
        return None, window.hold_until - now
    if tokens_per_window is not None:
        _, delay = token_delay(window.spent, now, tokens_per_window, window_s)
        if delay:
            return None, delay
    if per_window is None:  # a cap on tokens alone
        return None, 0.0
    kept, delay = admit(window.taken, now, per_window, window_s + margin_s)
    if delay:
        return None, delay
    return Counted(kept, window.spent, window.hold_until), 0.0


def spent_shared(window: Window, tokens: int, window_s: float) -> tuple[Counted, float]:
    """A call that finished with `tokens`, counted in the window from now."""
    now = window.now
    kept = [(t, n) for t, n in window.spent if now - t < window_s] + [(now, tokens)]
    return Counted(window.taken, kept, window.hold_until), 0.0


def held_shared(window: Window, seconds: float) -> tuple[Counted, float]:
    """No call for `seconds` from now (a later hold stands)."""
    until = max(window.hold_until, window.now + seconds)
    return Counted(window.taken, window.spent, until), 0.0


class WindowRows(Protocol):
    """Where the shared counts are kept: the store (store/rate_windows.py)."""

    @property
    def postgres(self) -> bool: ...

    def change_rate_window(
        self, name: str, change: Callable[[Window], tuple[Counted | None, float]]
    ) -> float: ...


# The store row of the requests-per-minute cap (and of the tokens-per-minute cap beside it).
REQUESTS = "requests"


def take_rate(
    rows: WindowRows,
    name: str,
    per_window: int | None,
    window_s: float,
    tokens_per_window: int | None = None,
    margin_s: float = 0.0,
) -> float:
    """Let one call through under the shared limit `name` (0.0), or say how many seconds to
    wait (nothing taken). A call keeps its place `margin_s` past the window (see above)."""
    return rows.change_rate_window(
        name, lambda w: take_shared(w, per_window, window_s, tokens_per_window, margin_s)
    )


def spend_tokens(rows: WindowRows, name: str, tokens: int, window_s: float) -> None:
    """A call under the shared limit `name` finished with `tokens`."""
    rows.change_rate_window(name, lambda w: spent_shared(w, tokens, window_s))


def hold_rate_off(rows: WindowRows, name: str, seconds: float) -> None:
    """No call under the shared limit `name` from any process for `seconds` from now."""
    rows.change_rate_window(name, lambda w: held_shared(w, seconds))


class SharedRateLimit(RateLimit):
    """At most `per_window` calls in any `window_s` seconds, from every process on the store
    `rows`; the waiting, the deadline and the progress line are `RateLimit`'s."""

    def __init__(
        self,
        rows: WindowRows,
        per_window: int | None,
        window_s: float = 60.0,
        tokens_per_window: int | None = None,
        margin_s: float = 0.0,
    ) -> None:
        super().__init__(
            per_window, window_s, tokens_per_window=tokens_per_window, margin_s=margin_s
        )
        self.rows = rows

    def try_take(self) -> float:
        return take_rate(
            self.rows,
            REQUESTS,
            self.per_window,
            self.window_s,
            self.tokens_per_window,
            self.margin_s,
        )

    def spend(self, tokens: int) -> None:
        if self.tokens_per_window is not None and tokens > 0:
            spend_tokens(self.rows, REQUESTS, tokens, self.window_s)

    def hold_off(self, seconds: float) -> None:
        hold_rate_off(self.rows, REQUESTS, seconds)


def rate_limit_for(
    rows: WindowRows,
    per_window: int | None,
    window_s: float,
    tokens_per_window: int | None = None,
    margin_s: float = 0.0,
) -> RateLimit:
    """The run's caps: shared through the store on PostgreSQL, this process's own on SQLite."""
    if rows.postgres:
        return SharedRateLimit(rows, per_window, window_s, tokens_per_window, margin_s)
    return RateLimit(per_window, window_s, tokens_per_window=tokens_per_window, margin_s=margin_s)
