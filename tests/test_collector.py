"""What the garbage collector visits in a command's process (run/collector.py).

Each entry point ends its process without the collector's last pass. The probe keeps an object
in a reference cycle alive until exit, whose finalizer writes a line: only that last pass over
everything would collect it. Without the entry point it does; after any of them it must not,
however the command ended.

A run's batch and a queue worker leave what the process holds before their first claim out of
later collections, once a process: garbage at that moment is collected, what lives is frozen,
and what is made after is collected as usual."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from claims_crew.policy.library import PolicyLibrary
from claims_crew.run import batch, collector
from claims_crew.run.worker import Worker
from claims_crew.store import Store
from tests.support.paths import ROOT
from tests.support.provider import provider_settings

PROBE = """
import os, sys

class InACycle:
    def __init__(self):
        self.me = self

    def __del__(self):
        os.write(1, b"collected at exit\\n")

kept = InACycle()
entry = sys.argv[1]
if entry == "cli":
    from claims_crew.cli import main
    main(["config", "check"], prog_name="claims-crew")
elif entry == "run_crew":
    from claims_crew.main import run
    run()
elif entry == "work_process":
    from claims_crew.run.work_process import main
    main(["too few arguments"])  # it fails at once, after the entry point's first line
"""


def ended(entry: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMS_CREW_")}
    env["CLAIMS_CREW_HOME"] = str(tmp_path / "home")
    # A missing config folder: `config check` and `crewai run` refuse it at once.
    env["CLAIMS_CREW_CONFIG"] = str(tmp_path / "no-config")
    return subprocess.run(
        [sys.executable, "-c", PROBE, entry],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_an_entry_point_the_last_pass_collects_the_cycle(tmp_path: Path) -> None:
    done = ended("none", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("collected at exit") == 1


@pytest.mark.parametrize("entry", ["cli", "run_crew", "work_process"])
def test_an_entry_point_skips_the_last_pass(entry: str, tmp_path: Path) -> None:
    done = ended(entry, tmp_path)
    assert done.returncode != 0, done.stderr  # each refused what it was given, then ended
    assert "collected at exit" not in done.stdout, done.stdout


FREEZE = """
import gc, weakref
from claims_crew.run.collector import freeze_what_is_loaded

class InACycle:
    def __init__(self):
        self.me = self

garbage, kept = weakref.ref(InACycle()), InACycle()
held = weakref.ref(kept)
freeze_what_is_loaded()
print("garbage collected first:", garbage() is None)
del kept
gc.collect()
print("frozen, not collected:", held() is not None)
later = weakref.ref(InACycle())
freeze_what_is_loaded()  # once a process: what came since is not frozen
gc.collect()
print("made after, collected:", later() is None)
"""


def test_what_a_process_holds_is_frozen_once_after_its_garbage_is_collected() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FREEZE], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "garbage collected first: True",
        "frozen, not collected: True",
        "made after, collected: True",
    ]


def test_a_batch_and_a_worker_freeze_what_the_process_holds(
    sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = provider_settings(sample_library, Store())
    frozen: list[int] = []
    monkeypatch.setattr(collector, "freeze_what_is_loaded", lambda: frozen.append(1))
    assert batch.review_ingested([], settings) == []
    assert frozen == [1]
    assert Worker(settings, 1, until_empty=True, poll_s=0.05).run() == []
    assert frozen == [1, 1]
