"""CLAIMS_CREW_MAX_RPM and CLAIMS_CREW_MAX_TPM counted once for every process on PostgreSQL.

Queue workers on one store usually share one provider key, so the cap is theirs together: each
call takes its place in the store's window (store/rate_windows.py) rather than in a count of
this process's own. The waiting, the deadline and the progress line are the per-process
limit's (llms/rate_limit.py); only where the count lives differs.

On SQLite the count stays per process: every take would be a write, and SQLite has one writer
for the whole file, so model calls would queue behind the claims' own records. A run's
`--workers` share the cap out instead (limits.rpm_share).
"""

from __future__ import annotations

from claims_crew.llms.rate_limit import RateLimit
from claims_crew.store import Store

# The store row of the requests-per-minute cap.
REQUESTS = "requests"


class SharedRateLimit(RateLimit):
    """At most `per_window` calls in any `window_s` seconds, from every process on `store`."""

    def __init__(
        self,
        store: Store,
        per_window: int | None,
        window_s: float = 60.0,
        tokens_per_window: int | None = None,
        margin_s: float = 0.0,
    ) -> None:
        super().__init__(
            per_window, window_s, tokens_per_window=tokens_per_window, margin_s=margin_s
        )
        self.store = store

    def try_take(self) -> float:
        return self.store.take_rate(
            REQUESTS, self.per_window, self.window_s, self.tokens_per_window, self.margin_s
        )

    def spend(self, tokens: int) -> None:
        if self.tokens_per_window is not None and tokens > 0:
            self.store.spend_tokens(REQUESTS, tokens, self.window_s)

    def hold_off(self, seconds: float) -> None:
        self.store.hold_rate_off(REQUESTS, seconds)


def rate_limit_for(
    store: Store,
    per_window: int | None,
    window_s: float,
    tokens_per_window: int | None = None,
    margin_s: float = 0.0,
) -> RateLimit:
    """The run's caps: shared through the store on PostgreSQL, this process's own on SQLite."""
    if store.postgres:
        return SharedRateLimit(store, per_window, window_s, tokens_per_window, margin_s)
    return RateLimit(per_window, window_s, tokens_per_window=tokens_per_window, margin_s=margin_s)
