"""The run's time limits: read from the environment, a deadline the caller can walk away at,
and a claim past its deadline that makes no further model call, whatever the model."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.llms.scripted import ScriptedLLM, final
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.batch import run_batch
from claims_crew.run.deadline import run_within
from claims_crew.settings import Limits
from claims_crew.store import Store
from tests.support.crew import INTAKE_WATER, settings, water_script
from tests.support.paths import ROOT
from tests.support.provider import DEADLINE_S
from tests.support.store import water_loaded


def test_the_defaults_bound_a_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "CLAIMS_CREW_MODEL_TIMEOUT",
        "CLAIMS_CREW_MODEL_RETRIES",
        "CLAIMS_CREW_CLAIM_DEADLINE",
        "ADJUDICATOR_MODEL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MODEL", "openai/gpt-4o-mini")
    assert Limits.from_environment() == Limits(120.0, 2, 600.0)
    # The in-process local model is slow, not silent: it gets an hour a claim.
    monkeypatch.delenv("MODEL")
    assert Limits.from_environment() == Limits(120.0, 2, 3600.0)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_TIMEOUT", "2.5")
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "0")  # off
    assert Limits.from_environment() == Limits(2.5, 0, None)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CLAIMS_CREW_MODEL_TIMEOUT", "soon"),
        ("CLAIMS_CREW_MODEL_TIMEOUT", "0"),
        ("CLAIMS_CREW_MODEL_TIMEOUT", "-5"),
        ("CLAIMS_CREW_MODEL_TIMEOUT", "nan"),
        ("CLAIMS_CREW_MODEL_TIMEOUT", "inf"),
        ("CLAIMS_CREW_MODEL_RETRIES", "-1"),
        ("CLAIMS_CREW_MODEL_RETRIES", "1.5"),
        ("CLAIMS_CREW_MODEL_RETRIES", "11"),
        ("CLAIMS_CREW_CLAIM_DEADLINE", "-1"),
        ("CLAIMS_CREW_CLAIM_DEADLINE", "ten minutes"),
    ],
)
def test_a_bad_value_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=f"{name}='{value}'"):
        Limits.from_environment()


def test_work_done_in_time_is_returned_and_its_error_raised() -> None:
    assert run_within(5, lambda stop: (stop.is_set(), threading.current_thread().name)) == (
        False,
        "deadline",
    )
    with pytest.raises(KeyError):
        run_within(5, lambda _stop: {}["missing"])
    assert run_within(None, lambda stop: stop.is_set()) is False  # no deadline: runs right here


def test_work_past_its_deadline_is_told_to_stop_and_its_result_dropped() -> None:
    release, finished = threading.Event(), threading.Event()
    seen: list[bool] = []

    def slow(stop: threading.Event) -> str:
        release.wait(10)
        seen.append(stop.is_set())
        finished.set()
        return "too late"

    assert run_within(0.2, slow) is None
    release.set()
    assert finished.wait(10)
    assert seen == [True]


@pytest.mark.slow
@pytest.mark.usefixtures("warm_crew")  # the deadline holds a warm claim's way to intake's call
def test_an_in_process_model_is_not_called_after_the_deadline(
    sample_library: PolicyLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal sits in CrewAI's executor, so the local and scripted models obey it too:
    intake answers after the deadline, and the policy agent's model is never asked."""
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", str(DEADLINE_S))
    gate = threading.Event()

    def late_intake(_messages: list[dict[str, Any]]) -> str:
        gate.wait(60)  # a guard: the gate opens once the claim has timed out
        return final(INTAKE_WATER)

    script = water_script()
    script.llms["intake"] = ScriptedLLM([late_intake], model="late")
    shared = settings(sample_library, script, tmp_path)
    loaded = water_loaded(tmp_path / "inbox")

    earlier = set(threading.enumerate())
    (item,) = run_batch([loaded.path], shared)
    review = next(t for t in set(threading.enumerate()) - earlier if t.name == "review C-1042")
    gate.set()  # intake answers now, after the deadline

    assert item.record is not None and item.record.error is not None
    assert item.record.error.code == "timeout"
    review.join(60)
    assert not review.is_alive()
    assert len(script("intake").calls) == 1
    assert script("policy").calls == [] and script("fraud").calls == []
    assert [a.status for a in shared.store.attempts("C-1042")] == ["failed"]


def test_a_run_with_a_bad_limit_stops_before_any_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("MODEL_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: never reached
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "ten minutes")
    water_loaded(tmp_path / "inbox")
    result = CliRunner().invoke(main, ["run", "--inbox", str(tmp_path / "inbox")])
    assert result.exit_code == 1
    assert "CLAIMS_CREW_CLAIM_DEADLINE='ten minutes'" in result.output + result.stderr
    # Every setting is checked whenever one is read: the store is opened without the bad one.
    monkeypatch.delenv("CLAIMS_CREW_CLAIM_DEADLINE")
    assert Store().attempts("C-1042") == []
