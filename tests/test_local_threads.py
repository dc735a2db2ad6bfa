"""The local model's threads: every core on an idle machine, one on a busy one, unless
CLAIMS_CREW_LOCAL_THREADS says otherwise; and `config check` says which.

Loading the model with the chosen count is tested in test_local_model.py (it loads the real
model, which takes seconds).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.llms import threads
from claims_crew.llms.local import LocalLLM
from claims_crew.llms.threads import IDLE_LOAD, choose_threads, local_threads, usable_cores


@pytest.mark.parametrize(
    ("cores", "load", "chosen"),
    [
        (2, 0.0, 2),  # idle: every core
        (2, 0.3, 2),
        (16, IDLE_LOAD - 0.01, 16),
        (2, IDLE_LOAD, 1),  # busy: one
        (2, 4.0, 1),
        (16, 3.0, 1),  # one busy neighbour holds up every thread, however many cores
        (1, 0.0, 1),
        (0, 0.0, 1),  # never fewer than one
        (4, None, 2),  # no load average (Windows): half the cores
        (1, None, 1),
    ],
)
def test_the_threads_are_every_core_when_idle_and_one_when_busy(
    cores: int, load: float | None, chosen: int
) -> None:
    assert choose_threads(cores, load) == chosen


def test_the_choice_reads_the_load_when_it_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAIMS_CREW_LOCAL_THREADS", raising=False)
    monkeypatch.setattr(threads, "machine_load", lambda: 0.1)
    monkeypatch.setattr(threads, "load_average", lambda: None)  # as on Windows
    idle = local_threads()
    assert (idle.threads, idle.cores, idle.by_setting) == (usable_cores(), usable_cores(), False)
    assert idle.describe().endswith(f"({usable_cores()} cores, 0.10 busy: idle)")
    monkeypatch.setattr(threads, "machine_load", lambda: 3.5)
    busy = local_threads()
    assert busy.threads == 1
    assert busy.describe() == f"1 thread ({usable_cores()} cores, 3.50 busy: busy)"
    assert busy.as_json() == {
        "threads": 1,
        "cores": usable_cores(),
        "load": 3.5,
        "load_average": None,
        "from": "load",
    }


def test_the_setting_wins_over_the_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "machine_load", lambda: 9.0)
    monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", "3")
    chosen = local_threads()
    assert (chosen.threads, chosen.by_setting) == (3, True)
    assert chosen.describe() == "3 threads (CLAIMS_CREW_LOCAL_THREADS)"
    assert LocalLLM.from_environment().threads == 3
    monkeypatch.delenv("CLAIMS_CREW_LOCAL_THREADS")
    # Unset, the model is built to choose when it loads, and has chosen nothing yet.
    unset = LocalLLM.from_environment()
    assert unset.threads is None
    assert unset.chosen_threads is None


@pytest.mark.parametrize("wrong", ["0", "two", "-1", "1.5", "auto"])
def test_a_bad_thread_count_is_refused_by_the_setting(
    monkeypatch: pytest.MonkeyPatch, wrong: str
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", wrong)
    with pytest.raises(ConfigError, match="CLAIMS_CREW_LOCAL_THREADS"):
        local_threads()
    with pytest.raises(ConfigError, match="CLAIMS_CREW_LOCAL_THREADS"):
        LocalLLM.from_environment()


def test_config_check_says_what_the_local_model_would_compute_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("MODEL", "CLAIMS_CREW_LOCAL_THREADS"):
        monkeypatch.delenv(name, raising=False)
    # Every core of two busy, as counted, while the OS reports a load of 5.6: the load printed
    # is the one the OS measured, not the busy cores, which can never pass the cores.
    monkeypatch.setattr(threads, "machine_load", lambda: 2.0)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (5.6125, 4.0, 3.0))
    result = CliRunner().invoke(main, ["config", "check"])
    assert result.exit_code == 0, result.output
    said = (
        f"local model: 1 thread ({usable_cores()} cores, 2.00 busy, load 5.61: busy) "
        "if it loaded now"
    )
    assert result.stdout.splitlines()[-1] == said
    payload = json.loads(CliRunner().invoke(main, ["config", "check", "--json"]).stdout)
    assert payload["local_threads"] == {
        "threads": 1,
        "cores": usable_cores(),
        "load": 2.0,
        "load_average": 5.6125,
        "from": "load",
    }
    # A model named for every agent: no local model, nothing said of its threads.
    monkeypatch.setenv("MODEL", "openai/gpt-4o-mini")
    named = CliRunner().invoke(main, ["config", "check", "--json"])
    assert json.loads(named.stdout)["local_threads"] is None
    assert "local model:" not in CliRunner().invoke(main, ["config", "check"]).stdout


def test_busy_cores_are_the_ticks_neither_idle_nor_waiting_times_the_cores() -> None:
    # user nice system idle iowait irq softirq steal: 300 of 1000 ticks were busy.
    first = (100, 0, 100, 1000, 50, 0, 0, 0)
    second = (300, 0, 200, 1650, 100, 0, 0, 0)
    assert threads.busy_cores(first, second) == round(0.3 * (os.cpu_count() or 1), 2)
    assert threads.busy_cores(first, first) == 0.0  # no ticks counted: nothing busy


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="Linux's CPU counters only")
def test_a_busy_neighbour_is_seen_and_the_model_takes_one_thread() -> None:
    loop = subprocess.Popen(
        [sys.executable, "-c", "print('on', flush=True)\nwhile True: pass"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert loop.stdout is not None and loop.stdout.readline() == "on\n"
        assert (load := threads.machine_load()) is not None and load >= threads.IDLE_LOAD
        assert threads.local_threads().threads == 1
    finally:
        loop.kill()
        loop.wait()


def test_a_count_given_spends_no_time_watching_the_load(monkeypatch: pytest.MonkeyPatch) -> None:
    def watched() -> float:
        raise AssertionError("the load was read though a count was given")

    monkeypatch.setattr(threads, "machine_load", watched)
    monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", "2")
    assert local_threads().as_json() == {
        "threads": 2,
        "cores": usable_cores(),
        "load": None,
        "load_average": None,
        "from": "CLAIMS_CREW_LOCAL_THREADS",
    }
