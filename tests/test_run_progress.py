"""What a run shows while it waits: the claims under review and for how long, in a terminal and
in a log, so that a slow or silent provider never leaves the user looking at the header alone."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest
from click.testing import CliRunner
from rich.console import Console
from rich.progress import Progress

from claims_crew.cli import main, progress
from claims_crew.cli.progress import InFlight, WaitingColumn
from claims_crew.cli.run import review_inbox
from claims_crew.policy.library import PolicyLibrary
from tests.support.openai_server import Hang, StartServer
from tests.support.paths import ROOT
from tests.support.provider import (
    DEADLINE_S,
    CrewScript,
    point_model_at,
    water_claims,
    water_replies,
)


def test_in_flight_names_the_longest_waits_first() -> None:
    now = [100.0]
    in_flight = InFlight(clock=lambda: now[0])
    assert in_flight.describe() == ""
    for name, at in [
        ("C-1.json", 10.0),
        ("C-2.json", 90.0),
        ("C-3.json", 50.0),
        ("C-4.json", 99.0),
    ]:
        now[0] = at
        in_flight.start(Path("inbox") / name)
    now[0] = 100.0
    assert (
        in_flight.describe() == "waiting on C-1.json 90 s, C-3.json 50 s, C-2.json 10 s and 1 more"
    )
    in_flight.finish(Path("inbox") / "C-1.json")
    assert in_flight.describe() == "waiting on C-3.json 50 s, C-2.json 10 s, C-4.json 1 s"


@pytest.fixture
def hanging_inbox(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Path:
    """Three water claims, one at a time; the provider never answers C-1's intake, which times
    out at the deadline. The policy is indexed first, where the run looks: the first claim would
    otherwise spend its time reading the PDF on a busy machine, and never reach the silent
    provider. C-1 pays the first claim's costs, so C-2 and C-3, each with a deadline of its own
    from its start, need only a warm claim's time."""
    PolicyLibrary().open("HM-HOME-001")
    script = CrewScript()
    for claim_id in ("C-1", "C-2", "C-3"):
        water_replies(script, claim_id)
    script.set("C-1", "intake", Hang())
    point_model_at(openai_server(script), monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", str(DEADLINE_S))
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    inbox = tmp_path / "inbox"
    water_claims(inbox, "C-1", "C-2", "C-3")
    return inbox


@pytest.mark.slow
def test_a_log_shows_each_claim_and_what_is_still_waiting(
    hanging_inbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a terminal (CliRunner, like a pipe or CI): a line per claim, and a line naming the
    claim under review while nothing finishes."""
    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.3)
    left: list[int] = []

    def exit_now(code: int) -> NoReturn:  # C-1's call is still open: the run ends at once
        left.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(os, "_exit", exit_now)
    result = CliRunner().invoke(main, ["run", "--inbox", str(hanging_inbox), "--concurrency", "1"])
    assert result.exit_code == 1, result.output
    assert left == [1]
    lines = result.output.splitlines()
    assert "waiting on C-1.json 1 s" in lines
    timed_out = f"[1/3] C-1.json: failed (timeout) after {DEADLINE_S}."
    assert any(line.startswith(timed_out) for line in lines)
    assert any(line.startswith("[2/3] C-2.json: reviewed in ") for line in lines)
    assert any(line.startswith("[3/3] C-3.json: reviewed in ") for line in lines)
    assert "1 claim(s) failed" in result.output


@pytest.mark.slow
def test_a_terminal_shows_the_claims_under_review_beside_the_bar(hanging_inbox: Path) -> None:
    console = Console(force_terminal=True, record=True, width=160)
    assert review_inbox(hanging_inbox, 1, console) == 1
    shown = console.export_text()
    assert "waiting on C-1.json 1 s" in shown
    assert "timeout" in shown


def test_a_file_name_cannot_drive_the_terminal() -> None:
    in_flight = InFlight(clock=lambda: 0.0)
    in_flight.start(Path("inbox") / "C-9\x1b[2J[red]x.json")
    bar = Progress()
    bar.add_task("reviewing")
    shown = WaitingColumn(in_flight).render(bar.tasks[0])
    assert shown.plain == "waiting on C-9\\x1b[2J[red]x.json 0 s"
