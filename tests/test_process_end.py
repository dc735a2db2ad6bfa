"""Each entry point ends its process without the garbage collector's last pass
(run/process_end.py).

The probe keeps an object in a reference cycle alive until exit, whose finalizer writes a
line: only that last pass over everything would collect it. Without the entry point it does;
after any of them it must not, however the command ended."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

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
