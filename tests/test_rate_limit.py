"""The run's requests-per-minute cap: one limit for every claim, agent and thread of a run,
which a claim past its deadline stops waiting on, shown while it holds calls back; and a storm
of 429s that ends with every claim decided or failed for the next run, never lost.

The cap's window is shrunk (Limits.rate_window_s) so the provider tests take seconds; what they
check is the count of requests in the scripted server's own log, not how long anything took.
"""

from __future__ import annotations

import io
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest
from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main, progress
from claims_crew.cli.progress import InFlight, waiting
from claims_crew.cli.run import review_inbox
from claims_crew.errors import ConfigError
from claims_crew.llms.cutoff import model_calls_until
from claims_crew.llms.rate_limit import RateLimit
from claims_crew.llms.scripted import ScriptedLLM
from claims_crew.llms.select import default_llm_factory
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.batch import SETTLED, run_batch
from claims_crew.run.context import build_context
from claims_crew.run.deadline import abandoned_work
from claims_crew.run.ingest import ingest
from claims_crew.run.routine import BatchItem, review_in_time
from claims_crew.settings import Limits
from claims_crew.store import Store
from tests.support.crew import settings, water_script
from tests.support.openai_server import ChatRequest, Reply, StartServer, Status
from tests.support.paths import ROOT
from tests.support.provider import (
    DEADLINE_S,
    CrewScript,
    point_model_at,
    water_claims,
    water_replies,
)
from tests.support.store import water_loaded

GUARD_S = 120.0  # turns a run that never ends into a failure, far beyond what these need


class FakeTime:
    """A clock that moves only when a wait is asked of it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    def wait(self, stop: threading.Event, seconds: float) -> bool:
        self.waits.append(seconds)
        self.now += seconds
        return stop.is_set()


def test_no_window_lets_more_through_than_the_limit() -> None:
    fake = FakeTime()
    limit = RateLimit(3, 60.0, clock=fake.clock, wait=fake.wait)
    times = []
    for at in (0.0, 1.0, 2.0, 30.0, 59.9, 60.0, 60.5, 61.0, 62.0):
        fake.now = at
        if limit.try_take() == 0:
            times.append(at)
    # 30 and 59.9 find three calls in the last minute; 60.0 is a minute after the first.
    assert times == [0.0, 1.0, 2.0, 60.0, 61.0, 62.0]
    fake.now = 62.5
    assert limit.try_take() == pytest.approx(60.0 + 60.0 - 62.5)  # a minute after 60.0


def test_a_held_call_waits_exactly_until_a_place_frees() -> None:
    fake = FakeTime()
    limit = RateLimit(2, 10.0, clock=fake.clock, wait=fake.wait)
    stop = threading.Event()
    assert limit.acquire(stop) and limit.acquire(stop)
    assert fake.waits == []
    fake.now = 4.0
    assert limit.acquire(stop)
    assert fake.waits == [pytest.approx(6.0)]  # until the first call's window ends
    assert fake.now == pytest.approx(10.0) and limit.waiting == 0


def test_a_place_is_held_past_the_window_by_the_runs_margin() -> None:
    """Arrivals at the provider spread by how long each call spent in CrewAI after taking its
    place: with places freed only a margin after the window, calls let through at the window's
    edge cannot land in one provider window with the calls before them."""
    fake = FakeTime()
    limit = RateLimit(2, 60.0, clock=fake.clock, wait=fake.wait, margin_s=2.0)
    assert limit.try_take() == 0 and limit.try_take() == 0
    fake.now = 60.0
    assert limit.try_take() == pytest.approx(2.0)  # free at 62, not 60
    fake.now = 62.0
    assert limit.try_take() == 0
    assert Limits(rate_window_s=60.0).rate_margin_s == 2.0
    assert Limits(rate_window_s=10.0).rate_margin_s == 0.5


def test_a_held_call_stops_waiting_when_its_claim_is_given_up() -> None:
    fake = FakeTime()
    stop = threading.Event()
    seen: list[int] = []

    def deadline_passes(event: threading.Event, seconds: float) -> bool:
        seen.append(limit.waiting)
        event.set()
        return True

    limit = RateLimit(1, 60.0, clock=fake.clock, wait=deadline_passes)
    assert limit.acquire(stop)
    assert not limit.acquire(stop)
    assert seen == [1] and limit.waiting == 0
    fake.now = 61.0
    assert not limit.acquire(stop)  # stopped: nothing taken even with a place free
    assert limit.try_take() == 0


def test_the_limit_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAIMS_CREW_MAX_RPM", raising=False)
    assert Limits.from_environment().max_rpm is None
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "60")
    assert Limits.from_environment().max_rpm == 60
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "0")  # off, like the deadline's 0
    assert Limits.from_environment().max_rpm is None
    for bad in ("fast", "-1", "2.5", "1e9"):
        monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", bad)
        with pytest.raises(ConfigError, match="CLAIMS_CREW_MAX_RPM"):
            Limits.from_environment()


def test_a_run_makes_one_limit_shared_by_every_claim(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    run = build_context(
        library=sample_library,
        llm_for=water_script(),
        config_dir=ROOT / "config",
        store=Store(tmp_path / "claims.sqlite"),
        limits=Limits(max_rpm=30),
    )
    assert run.rate_limit is not None and run.rate_limit.label == "30/min"
    unlimited = settings(sample_library, water_script(), tmp_path)
    assert unlimited.rate_limit is None


def test_every_call_of_an_in_process_model_passes_the_limit(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """An agent's calls, and a call made outside an agent's loop, as CrewAI's converter does."""
    fake = FakeTime()
    limit = RateLimit(1000, clock=fake.clock, wait=fake.wait)
    script = water_script()
    run = build_context(
        library=sample_library,
        llm_for=script,
        config_dir=ROOT / "config",
        store=Store(tmp_path / "claims.sqlite"),
        rate_limit=limit,
    )
    record = review_in_time(water_loaded(tmp_path), run)
    assert record.status == "reviewed", record.error
    calls = sum(len(llm.calls) for llm in script.llms.values())
    assert calls == 5 and limit.in_window == calls  # intake twice: facts, targeted question

    direct = ScriptedLLM(["an answer"], model="scripted-direct")
    with model_calls_until(threading.Event(), limit):
        assert direct.call("Convert this.") == "an answer"
    assert limit.in_window == calls + 1


def _most_in_any_window(times: list[float], window_s: float) -> int:
    arrivals = sorted(times)
    return max(
        (sum(1 for t in arrivals[i:] if t - start < window_s) for i, start in enumerate(arrivals)),
        default=0,
    )


def _finishes(work: Callable[[], list[BatchItem]]) -> list[BatchItem]:
    box: list[list[BatchItem]] = []
    thread = threading.Thread(target=lambda: box.append(work()), daemon=True)
    thread.start()
    thread.join(GUARD_S)
    assert box, f"still running after {GUARD_S:g} s"
    return box[0]


def _provider_run(
    paths: list[Path], library: PolicyLibrary, store: Store, limits: Limits, concurrency: int
) -> list[BatchItem]:
    run = build_context(
        library=library,
        llm_for=default_llm_factory(ROOT / "config", limits),
        config_dir=ROOT / "config",
        store=store,
        limits=limits,
    )
    return _finishes(lambda: run_batch(paths, run, concurrency))


class LoggedRateLimit(RateLimit):
    """The limit, keeping the time of every call it let through."""

    def __init__(self, per_window: int, window_s: float) -> None:
        super().__init__(per_window, window_s)
        self.log: list[float] = []
        self._one_at_a_time = threading.Lock()  # the time read is the one this call appended

    def try_take(self) -> float:
        with self._one_at_a_time:
            delay = super().try_take()
            if not delay:
                self.log.append(self._let_through[-1])
        return delay


def test_the_limit_holds_across_concurrent_claims(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """Four claims at once, five model calls each, at most 4 calls in any 2 s window. Every
    request the server received was let through by the one limit before it arrived, and the
    limit never let more than 4 through in a window.

    (The server's arrival times follow the limit's by CrewAI's own work before it sends, up to
    a second or two on a first call: on this shrunk window that is not a margin to count on.)
    """
    ids = ("C-1", "C-2", "C-3", "C-4")
    script = CrewScript()
    for claim_id in ids:
        water_replies(script, claim_id)
    server = openai_server(script)
    point_model_at(server, monkeypatch)
    limit = LoggedRateLimit(4, 2.0)
    run = build_context(
        library=sample_library,
        llm_for=default_llm_factory(ROOT / "config", Limits(call_timeout_s=30, retries=0)),
        config_dir=ROOT / "config",
        store=Store(tmp_path / "claims.sqlite"),
        limits=Limits(call_timeout_s=30, retries=0, claim_deadline_s=None),
        rate_limit=limit,
    )

    items = _finishes(lambda: run_batch(water_claims(tmp_path / "inbox", *ids), run, 4))

    assert [i.record.status for i in items if i.record] == ["reviewed"] * 4
    arrivals = sorted(r.at for r in server.requests)
    assert len(arrivals) == len(limit.log) == 20
    # The n-th request arrived after the n-th call was let through: none went around the limit.
    assert all(let <= came for let, came in zip(sorted(limit.log), arrivals, strict=True))
    assert _most_in_any_window(limit.log, 2.0) == 4


class Storm:
    """Every request answered 429 (with Retry-After) for `seconds` from the first one, then
    the script's answers."""

    def __init__(self, script: CrewScript, seconds: float, retry_after: float) -> None:
        self.script = script
        self.seconds = seconds
        self.retry_after = retry_after
        self._lock = threading.Lock()
        self.started: float | None = None
        self.refused = 0

    def __call__(self, request: ChatRequest) -> Reply:
        with self._lock:
            if self.started is None:
                self.started = request.at
            if request.at - self.started < self.seconds:
                self.refused += 1
                return Status(429, "rate limit reached", retry_after=self.retry_after)
        return self.script(request)

    def wait_out(self) -> None:
        assert self.started is not None
        time.sleep(max(0.0, self.started + self.seconds - time.monotonic()) + 0.1)


@pytest.mark.parametrize(
    ("storm_s", "retry_after", "retries"),
    [(5.0, 0.5, 0), (30.0, 2.0, 2)],
    ids=["short storm", "30 s storm"],
)
def test_a_429_storm_loses_no_claim(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
    storm_s: float,
    retry_after: float,
    retries: int,
) -> None:
    """Each claim is decided or fails with code rate_limited; the next run decides the rest."""
    ids = ("C-1", "C-2", "C-3", "C-4")
    script = CrewScript()
    for claim_id in ids:
        water_replies(script, claim_id)
    storm = Storm(script, storm_s, retry_after)
    server = openai_server(storm)
    point_model_at(server, monkeypatch)
    limits = Limits(call_timeout_s=30, retries=retries, claim_deadline_s=None)
    store = Store(tmp_path / "claims.sqlite")
    paths = water_claims(tmp_path / "inbox", *ids)

    first = _provider_run(paths, sample_library, store, limits, concurrency=2)

    outcomes = {i.record.claim_id: i.record for i in first if i.record is not None}
    assert sorted(outcomes) == sorted(ids)
    failed = {c for c, r in outcomes.items() if r.status == "failed"}
    assert failed, "the storm failed no claim: it was too short to test anything"
    for claim_id in failed:
        error = outcomes[claim_id].error
        assert error is not None and error.code == "rate_limited", error
    assert {d.claim_id for d in store.decisions()} == set(ids) - failed

    storm.wait_out()
    todo = [i.path for i in ingest(paths, store) if i.state not in SETTLED]
    assert sorted(p.stem for p in todo) == sorted(failed)  # what a re-run of the inbox takes
    second = _provider_run(todo, sample_library, store, limits, concurrency=2)

    assert sorted(i.record.claim_id for i in second if i.record) == sorted(failed)
    assert all(i.record.status == "reviewed" for i in second if i.record)
    assert {d.claim_id for d in store.decisions()} == set(ids)


@pytest.fixture
def capped_inbox(
    warm_crew: None,
    warm_index: None,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Path:
    """One water claim under a cap of one call a minute: its calls after intake are held until
    the claim's deadline, and then no longer. With the crew warm and the policy indexed, the
    deadline holds intake's call many times over, even on a busy machine."""
    script = water_replies(CrewScript(), "C-1")
    point_model_at(openai_server(script), monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "1")
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", str(DEADLINE_S))
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    inbox = tmp_path / "inbox"
    water_claims(inbox, "C-1")
    return inbox


def test_a_log_says_when_the_run_waits_on_the_limit(
    capped_inbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.3)

    def exit_now(code: int) -> NoReturn:
        raise SystemExit(code)

    monkeypatch.setattr(os, "_exit", exit_now)
    result = CliRunner().invoke(main, ["run", "--inbox", str(capped_inbox)])
    lines = result.output.splitlines()
    held = [line for line in lines if line.startswith("waiting on rate limit (1/min): ")]
    # Policy and fraud may both be held, side by side; the claim is named after the wait.
    assert held and all(re.search(r": [12] calls? held; waiting on C-1\.json", h) for h in held)
    timed_out = f"[1/1] C-1.json: failed (timeout) after {DEADLINE_S}."
    assert any(line.startswith(timed_out) for line in lines)
    assert result.exit_code == 1, result.output


def test_a_terminal_shows_the_wait_beside_the_bar(capped_inbox: Path) -> None:
    console = Console(force_terminal=True, record=True, width=160)
    assert review_inbox(capped_inbox, 1, console) == 1
    assert re.search(r"waiting on rate limit \(1/min\): [12] calls? held", console.export_text())


def test_a_claim_past_its_deadline_stops_waiting_on_the_limit(
    capped_inbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert review_inbox(capped_inbox, 1, Console(file=io.StringIO())) == 1
    # The held call was never made, so nothing of the claim is left running.
    for _ in range(100):
        if not abandoned_work():
            break
        time.sleep(0.05)
    assert abandoned_work() == []


def test_the_wait_is_named_before_the_claims() -> None:
    fake = FakeTime()
    shown: list[str] = []

    def held(stop: threading.Event, seconds: float) -> bool:
        shown.append(waiting(in_flight, limit))
        return True  # given up: the display is read while the call is held

    limit = RateLimit(1, 2.0, clock=fake.clock, wait=held)
    in_flight = InFlight(clock=fake.clock)
    in_flight.start(Path("C-1.json"))
    assert waiting(in_flight, limit) == "waiting on C-1.json 0 s"
    assert limit.try_take() == 0
    assert not limit.acquire(threading.Event())
    assert shown == ["waiting on rate limit (1 per 2 s): 1 call held; waiting on C-1.json 0 s"]
