"""Claim leases: two runs never send the same claim to models at once, a killed run's lease
does not block the next one, and a holder whose lease another has taken calls no model for the
claim and records nothing."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from claims_crew.errors import LeaseLost
from claims_crew.llms.scripted import ScriptedLLM, final, lookup
from claims_crew.llms.select import default_llm_factory
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord, RunError
from claims_crew.run.batch import run_batch
from claims_crew.run.context import build_context
from claims_crew.run.ingest import ingest
from claims_crew.run.routine import BatchItem
from claims_crew.run.worker import Worker
from claims_crew.store import Store, lease_holder
from claims_crew.store.work_queue import WORK_LEASE_S
from claims_crew.vocabulary import utc_now
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    Script,
    settings,
    start_date_answer,
)
from tests.support.openai_server import ChatRequest, Reply, StartServer
from tests.support.paths import ROOT
from tests.support.provider import (
    CALLS_PER_REVIEW,
    CrewScript,
    claim_of,
    point_model_at,
    water_claims,
    water_replies,
)
from tests.support.store import water_loaded

pytestmark = pytest.mark.usefixtures("engine")


def test_one_holder_at_a_time() -> None:
    first, second = Store(), Store()  # two processes' stores on one database
    a, b = lease_holder(), lease_holder()
    assert first.lease("C-1", a)
    assert not second.lease("C-1", b)  # same live process, another attempt: refused
    assert first.lease("C-1", a)  # the holder may renew
    assert second.lease("C-2", b)  # other claims are free
    first.release("C-1", a)
    assert second.lease("C-1", b)


def test_an_expired_lease_is_taken_over() -> None:
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    store = Store(clock=lambda: now[0])
    assert store.lease("C-1", lease_holder(), seconds=60)
    assert not store.lease("C-1", lease_holder())
    now[0] += timedelta(seconds=61)
    assert store.lease("C-1", lease_holder())


@pytest.mark.slow
def test_a_dead_process_lease_is_taken_over_at_once() -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "from claims_crew.store import lease_holder; print(lease_holder())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    store = Store()
    assert store.lease("C-1", dead)  # as a killed run would have left it
    assert store.lease("C-1", lease_holder())


@pytest.mark.slow
def test_two_runs_on_one_claim_call_the_models_once(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    loaded = water_loaded(tmp_path / "inbox")
    script = Script(
        intake=[final(INTAKE_WATER)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[final(FRAUD_EXCLUDED)],
    )
    # Intake answers slowly, so the second run arrives while the first holds the claim; asked
    # when the damage started, it answers null.
    answers = [final(INTAKE_WATER), final(start_date_answer(None))]
    slow_intake = ScriptedLLM(answers, model="slow-intake", latency_s=1.0)
    script.llms["intake"] = slow_intake
    shared = dataclasses.replace(settings(sample_library, script, tmp_path), store=Store())
    results = []

    def run() -> None:
        results.extend(run_batch([loaded.path], shared))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(item.busy for item in results) == [False, True]
    assert all(item.ok for item in results)
    assert len(slow_intake.calls) == 2  # one run's facts and targeted question
    assert len(shared.store.decisions()) == 1
    # Released after the claim was recorded: a later run finds it decided, not busy.
    (later,) = run_batch([loaded.path], shared)
    assert not later.busy and later.record is not None
    assert len(slow_intake.calls) == 2


@pytest.mark.slow
@pytest.mark.usefixtures("warm_index")
def test_a_worker_paused_past_its_lease_makes_no_further_model_call(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a worker stopped (SIGSTOP) mid-claim for longer than its lease: its first model call
    is held at the scripted server while another worker, past that lease, takes the claim and
    decides it. Let go, the paused worker makes no further call for the claim and records
    nothing; the claim is the other worker's."""
    script = water_replies(CrewScript(), "P-1")
    paused_at_call, let_go = threading.Event(), threading.Event()

    def respond(request: ChatRequest) -> Reply:
        if not paused_at_call.is_set():  # the first call of all: the paused worker's
            paused_at_call.set()
            let_go.wait(timeout=300)
        return script(request)

    server = openai_server(respond)
    point_model_at(server, monkeypatch)
    store = Store()
    ingest(water_claims(tmp_path / "inbox", "P-1"), store)
    settings = build_context(
        library=PolicyLibrary(),
        llm_for=default_llm_factory(ROOT / "config"),
        config_dir=ROOT / "config",
        store=store,
    )
    paused_items: list[BatchItem] = []
    paused = threading.Thread(
        target=lambda: paused_items.extend(Worker(settings, until_empty=True, poll_s=0.05).run())
    )
    paused.start()
    assert paused_at_call.wait(timeout=300), "the worker never called the model"

    # Another worker, its clock past the paused one's lease, takes the claim and decides it.
    later = Store(clock=lambda: utc_now() + timedelta(seconds=WORK_LEASE_S + 1))
    others = Worker(dataclasses.replace(settings, store=later), until_empty=True).run()
    assert [item.record.claim_id for item in others if item.record] == ["P-1"]
    before = len(server.requests)

    let_go.set()
    paused.join(timeout=300)
    assert not paused.is_alive()
    # No call for the claim once the paused worker went on; its one call was the held one.
    assert [claim_of(r) for r in server.requests[before:]] == []
    assert Counter(claim_of(r) for r in server.requests) == {"P-1": 1 + CALLS_PER_REVIEW}
    [given_up] = paused_items
    assert given_up.busy and given_up.record is None
    assert "lease passed to another holder" in (given_up.error or "")
    # Decided once, by the other worker; nothing of the paused worker's review was recorded.
    assert [d.claim_id for d in store.decisions()] == ["P-1"]
    assert len(store.attempts("P-1")) == 1
    assert store.queue_counts().pending == 0
    assert store.verify_audit().ok


def test_a_record_from_a_holder_whose_lease_was_taken_is_refused_whole(tmp_path: Path) -> None:
    """The store's own guard, under its write lock: a late result of a holder whose lease
    another took is not written, not even as an attempt."""
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    store = Store(clock=lambda: now[0])
    loaded = water_loaded(tmp_path / "inbox")
    claim_id = loaded.claim.claim_id
    first, second = lease_holder(), lease_holder()
    assert store.lease(claim_id, first, seconds=60)
    assert store.holds(claim_id, first)
    now[0] += timedelta(seconds=61)
    assert store.lease(claim_id, second)
    assert not store.holds(claim_id, first)
    late = ClaimRecord(
        claim_id=claim_id,
        claim_file=str(loaded.path),
        claim_sha256=loaded.sha256,
        policy_id=loaded.claim.policy_id,
        started_at=now[0],
        status="failed",
        finished_at=now[0],
        error=RunError(code="timeout", message="late"),
    )
    with pytest.raises(LeaseLost):
        store.record(late, None, loaded, holder=first)
    assert store.attempts(claim_id) == []
    store.record(late, None, loaded, holder=second)
    assert len(store.attempts(claim_id)) == 1
