"""CLAIMS_CREW_MAX_RPM once for every process on a PostgreSQL store: four `claims-crew work`
processes at a cap of N send at most N requests in any window, counted in the scripted
server's own log; a provider's 429 holds every process off, not only the one that met it.

The cap's window is shrunk (CLAIMS_CREW_RATE_WINDOW) so the test takes seconds, not minutes;
what it checks is a count of requests, never how long anything took.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from claims_crew.llms.rate_limit import (
    Counted,
    SharedRateLimit,
    admit,
    hold_rate_off,
    rate_limit_for,
    take_rate,
    take_shared,
)
from claims_crew.run.context import RunContext
from claims_crew.run.ingest import ingest
from claims_crew.run.processes import worker_environment
from claims_crew.store import Store
from claims_crew.store.rate_windows import RateWindow
from tests.support.openai_server import ChatRequest, StartServer
from tests.support.paths import ROOT
from tests.support.provider import (
    CrewScript,
    point_model_at,
    provider_settings,
    water_claims,
    water_replies,
)
from tests.support.work_processes import (
    decided_once,
    wait_for,
    wait_until_polling,
    work_command,
    work_processes,
)

# Eight a window: the four claims' twenty calls still need three windows, so the cap holds
# calls back, and a batch takes about 20 s rather than the 50 s that four a window took.
CAP, WINDOW_S = 8, 10.0
WORKERS, CONCURRENCY = 4, 1
WARM = [f"W-{n}" for n in range(1, WORKERS + 1)]
CLAIMS = [f"L-{n}" for n in range(1, 5)]
# A request reaches the server after its place was taken in the store, by CrewAI's own work
# before it sends. For a fresh process's first calls that took 7 s on a busy two-core machine
# (four workers building their first crews at once), so the test measures warm workers (one
# claim each first); after that it is hundredths of a second, which the place's margin past the
# window (Limits.rate_margin_s, 0.5 s here) covers: the server counts in the cap's own window.


def most_in_any_window(requests: list[ChatRequest], window_s: float) -> int:
    """The most of these requests the server received within `window_s` seconds."""
    times = sorted(request.at for request in requests)
    return max((sum(1 for t in times if s <= t < s + window_s) for s in times), default=0)


def all_decided(store: Store, claim_ids: list[str]) -> bool:
    decided = {d.claim_id for d in store.decisions()}
    return set(claim_ids) <= decided and store.queue_counts().pending == 0


def test_the_window_lets_through_no_more_than_its_cap() -> None:
    taken: list[float] = []
    let_through = []
    for now in (0.0, 1.0, 2.0, 2.5, 9.9, 10.0, 10.5, 11.0, 12.5):
        taken, wait = admit(taken, now, 3, 10.0)
        if not wait:
            let_through.append(now)
        else:
            assert wait > 0  # and taken unchanged: nothing let through
    # 2.5, 9.9 and 10.5 find three calls in the last ten seconds; 10.0 is ten after the first.
    assert let_through == [0.0, 1.0, 2.0, 10.0, 11.0, 12.5]
    assert taken == [10.0, 11.0, 12.5]


def test_a_place_is_held_the_margin_past_the_window() -> None:
    taken, wait = admit([0.0, 1.0], 10.0, 2, 10.0 + 0.5)
    assert wait == pytest.approx(0.5) and taken == [0.0, 1.0]
    taken, wait = admit(taken, 10.5, 2, 10.0 + 0.5)
    assert wait == 0 and taken == [1.0, 10.5]


def test_two_stores_on_one_database_count_one_window(postgres_url: str) -> None:
    first, second = Store(url=postgres_url), Store(url=postgres_url)
    window = 3600.0  # no place frees during the test
    taken = [take_rate(store, "requests", 3, window) for store in (first, second, first)]
    assert taken == [0.0, 0.0, 0.0]
    assert take_rate(second, "requests", 3, window) > 0
    assert take_rate(first, "requests", 3, window) > 0
    # Another limit's row is counted apart.
    assert take_rate(second, "tokens", 3, window) == 0.0


def test_a_hold_off_from_one_process_holds_every_process(postgres_url: str) -> None:
    first, second = Store(url=postgres_url), Store(url=postgres_url)
    hold_rate_off(first, "requests", 3600.0)
    assert take_rate(second, "requests", 100, 60.0) > 3000


def test_the_cap_is_shared_on_postgres_and_per_process_on_sqlite(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isinstance(rate_limit_for(Store(url=postgres_url), 10, 60.0), SharedRateLimit)
    assert not isinstance(rate_limit_for(Store(tmp_path / "s.sqlite"), 10, 60.0), SharedRateLimit)
    # `run --workers 4` gives each worker the whole cap on PostgreSQL, a quarter on SQLite.
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "60")
    assert worker_environment(4, Store(url=postgres_url))["CLAIMS_CREW_MAX_RPM"] == "60"
    assert worker_environment(4, Store(tmp_path / "s.sqlite"))["CLAIMS_CREW_MAX_RPM"] == "15"


@pytest.mark.usefixtures("warm_index")
def test_four_workers_send_at_most_the_cap_in_any_window(
    tmp_path: Path,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    postgres_url: str,
) -> None:
    script = CrewScript()
    for claim_id in WARM + CLAIMS:
        water_replies(script, claim_id)
    server = openai_server(script)
    monkeypatch.setenv("CLAIMS_CREW_DATABASE_URL", postgres_url)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", str(CAP))
    monkeypatch.setenv("CLAIMS_CREW_RATE_WINDOW", f"{WINDOW_S:g}")
    point_model_at(server, monkeypatch)
    store = Store()
    command = work_command(CONCURRENCY)
    with work_processes(command, dict(os.environ), WORKERS, tmp_path / "worker") as workers:
        wait_until_polling(store, workers)
        # One claim a worker: every worker is polling before the claims arrive, and at
        # concurrency 1 each takes one; a claim's five calls and a new crew's first build take
        # far longer than a poll, so no worker takes a second while one is left.
        for batch, folder in ((WARM, "warm"), (CLAIMS, "inbox")):
            before = len(server.requests)
            ingest(water_claims(tmp_path / folder, *batch), store)
            decided = functools.partial(all_decided, store, batch)
            wait_for(decided, 600, f"the {folder} claims decided")
    assert decided_once(store, WARM + CLAIMS) == []
    measured = server.requests[before:]
    # Each claim's five model calls went out, and never more than the cap in a window.
    assert len(measured) >= 5 * len(CLAIMS) > 2 * CAP  # so the cap held calls back
    assert most_in_any_window(measured, WINDOW_S) <= CAP


def test_a_429_after_the_retries_holds_the_run_off(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.run.batch import run_batch
    from tests.support.openai_server import Status

    server = openai_server(lambda _request: Status(429, retry_after=0))
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "100")
    settings: RunContext = provider_settings(PolicyLibrary(), Store(tmp_path / "s.sqlite"))
    assert settings.rate_limit is not None and settings.rate_limit.try_take() == 0
    (item,) = run_batch(water_claims(tmp_path / "inbox", "L-429"), settings, 1)
    assert item.record is not None and item.record.error is not None
    assert item.record.error.code == "rate_limited"
    # Held off for a window (the 429 named no wait): no call goes now, whatever the count.
    assert settings.rate_limit.try_take() > 0


def test_the_shared_window_s_rows_are_kept_on_sqlite_too(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    window = 3600.0
    assert [take_rate(store, "requests", 2, window) for _ in range(2)] == [0.0, 0.0]
    assert take_rate(store, "requests", 2, window) > 3000
    hold_rate_off(store, "other", 3600.0)
    assert take_rate(store, "other", 100, window) > 3000


def test_take_shared_lets_one_through_or_writes_nothing() -> None:
    window = RateWindow(taken=(0.0, 1.0), spent=(), hold_until=0.0, now=5.0)
    counts, wait = take_shared(window, 3, 10.0)
    assert wait == 0.0 and counts == Counted([0.0, 1.0, 5.0], (), 0.0)
    assert take_shared(window, 2, 10.0) == (None, pytest.approx(5.0))
    held = RateWindow(taken=(), spent=(), hold_until=9.0, now=5.0)
    assert take_shared(held, 3, 10.0) == (None, 4.0)
