"""Claim leases: two runs never send the same claim to models at once, and a killed run's lease
does not block the next one."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from claims_crew.llms.scripted import ScriptedLLM, final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.batch import run_batch
from claims_crew.store import Store, lease_holder
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    Script,
    settings,
    start_date_answer,
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
