"""CLAIMS_CREW_MAX_TPM: a call starts only while the tokens of the calls that finished in the
window are under the cap; counted per process on SQLite, in the store's window row on
PostgreSQL. What is checked is which requests reached the scripted server, never how long
anything took: the limit's wait is a parameter, here one that refuses at once.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from claims_crew.llms.rate_limit import (
    RateLimit,
    SharedRateLimit,
    spend_tokens,
    take_rate,
    token_delay,
)
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.batch import run_batch
from claims_crew.run.context import build_context
from claims_crew.store import Store
from tests.support.openai_server import StartServer
from tests.support.provider import (
    CALLS_PER_REVIEW,
    CrewScript,
    point_model_at,
    provider_settings,
    water_claims,
    water_replies,
)


def test_the_window_holds_calls_while_its_tokens_reach_the_cap() -> None:
    spent = [(0.0, 60), (5.0, 50)]
    assert token_delay(spent, 6.0, 200, 10.0) == (spent, 0.0)
    # 110 of 100: once the first call's 60 leave the window (at 10 s), 50 are under the cap.
    assert token_delay(spent, 6.0, 100, 10.0) == (spent, 4.0)
    assert token_delay(spent, 10.5, 100, 10.0) == ([(5.0, 50)], 0.0)


def test_the_local_limit_counts_the_tokens_spent() -> None:
    now = [0.0]
    limit = RateLimit(None, 60.0, clock=lambda: now[0], tokens_per_window=100)
    assert limit.try_take() == 0.0 and limit.try_take() == 0.0  # no cap on the requests
    limit.spend(99)
    assert limit.try_take() == 0.0
    limit.spend(1)
    assert limit.try_take() == 60.0
    now[0] = 60.0
    assert limit.try_take() == 0.0
    assert limit.label == "100 tokens/min"


def test_the_tokens_are_counted_in_the_store_for_every_process(postgres_url: str) -> None:
    first, second = Store(url=postgres_url), Store(url=postgres_url)
    window = 3600.0
    assert take_rate(second, "requests", None, window, 100) == 0.0
    spend_tokens(first, "requests", 120, window)
    assert take_rate(second, "requests", None, window, 100) > 3000
    assert take_rate(second, "requests", 10, window, 200) == 0.0  # a higher cap lets it through
    assert take_rate(first, "other", None, window, 100) == 0.0  # another limit's row


def test_the_setting_builds_the_cap_shared_on_postgres(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_MAX_TPM", "40000")
    shared = provider_settings(PolicyLibrary(), Store(url=postgres_url)).rate_limit
    assert isinstance(shared, SharedRateLimit) and shared.tokens_per_window == 40000
    local = provider_settings(PolicyLibrary(), Store(tmp_path / "s.sqlite")).rate_limit
    assert local is not None and not isinstance(local, SharedRateLimit)
    assert local.tokens_per_window == 40000 and local.per_window is None


@pytest.mark.parametrize(("cap", "sent"), [(1, 1), (10_000_000, CALLS_PER_REVIEW)])
def test_no_call_starts_once_the_window_tokens_reach_the_cap(
    cap: int,
    sent: int,
    tmp_path: Path,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = openai_server(water_replies(CrewScript(), "T-1"))
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "0")
    # Each time a call must wait: how many requests the server had then; the wait gives up.
    waited_at: list[int] = []

    def refuse(_stop: threading.Event, _seconds: float) -> bool:
        waited_at.append(len(server.requests))
        return True

    limit = RateLimit(None, 60.0, wait=refuse, tokens_per_window=cap)
    base = provider_settings(PolicyLibrary(), Store(tmp_path / "s.sqlite"))
    settings = build_context(
        library=base.library,
        llm_for=base.llm_for,
        config_dir=base.config_dir,
        store=base.store,
        rate_limit=limit,
    )
    (item,) = run_batch(water_claims(tmp_path / "inbox", "T-1"), settings, 1)
    assert item.record is not None
    # The first call (intake) went; its tokens reached a cap of 1, so policy and fraud never
    # started: the server saw that one request only. Under a high cap all five went.
    assert len(server.requests) == sent
    if sent == 1:
        assert item.record.status == "failed"
        assert waited_at and set(waited_at) == {1}
    else:
        assert item.record.status == "reviewed" and waited_at == []
