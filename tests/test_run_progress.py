"""What a run shows while it works: each claim's line as it finishes, and the claims under review
and for how long, in a terminal and in a log, so that a slow or silent provider never leaves the
user looking at the header alone, and a run stopped halfway has still shown what it decided."""

from __future__ import annotations

import io
import os
import re
import threading
from pathlib import Path
from typing import NoReturn

import pytest
from click.testing import CliRunner
from rich.console import Console
from rich.progress import Progress

from claims_crew.cli import main, progress
from claims_crew.cli.progress import BatchProgress, InFlight, WaitingColumn
from claims_crew.cli.run import review_inbox
from claims_crew.llms.base import Messages
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.routine import BatchItem
from tests.support.crew import FRAUD_EXCLUDED, POLICY_COVERED, looked_up, responding, water_intake
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
    decided = ": ESCALATED (needs_more_evidence); policy covered 0.82 ✓, fraud not_covered 0.70 ✗"
    for number, name in ((2, "C-2.json"), (3, "C-3.json")):
        assert any(
            line.startswith(f"[{number}/3] {name}: reviewed in ") and line.endswith(decided)
            for line in lines
        ), "\n".join(lines)
    assert "1 claim(s) failed: 1 timeout" in result.output


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


# --- each claim's line as it finishes --------------------------------------------------------

TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
GUARD_S = 120.0  # far beyond what a claim takes here: a missing line fails, it never hangs


class Watched(io.StringIO):
    """A console's file that tells the moment `wanted` has been written to it."""

    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.seen = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.wanted in self.getvalue():
            self.seen.set()
        return written


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "log"])
def test_each_claims_line_is_printed_as_it_finishes(tmp_path: Path, terminal: bool) -> None:
    """C-2's review waits, in its first model call, until C-1's line is on the console: a run
    that printed its lines only at the end, or only in a log, would never let it go."""
    watched = Watched("C-1.json: reviewed in ")

    def intake(messages: Messages) -> str:
        if "claim C-2" in str(messages):
            assert watched.seen.wait(GUARD_S), "C-1's line was not printed when it finished"
        return water_intake(messages)

    script = responding(
        intake=intake,
        policy=lambda m: final(POLICY_COVERED) if looked_up(m) else lookup("HM-HOME-001", "4.2(b)"),
        fraud=lambda _m: final(FRAUD_EXCLUDED),
    )
    inbox = tmp_path / "inbox"
    water_claims(inbox, "C-1", "C-2")
    console = Console(file=watched, force_terminal=terminal, width=200)
    assert console.is_terminal is terminal

    assert review_inbox(inbox, 1, console, llm_for=script) == 0
    shown = TERMINAL_CODES.sub("", watched.getvalue())  # the colours and the bar's redrawing
    decided = "ESCALATED (needs_more_evidence); policy covered 0.82 ✓, fraud not_covered 0.70 ✗"
    for line in ("[1/2] C-1.json: reviewed in ", "[2/2] C-2.json: reviewed in "):
        start = shown.index(line)
        assert decided in shown[start : shown.index("\n", start)]
    # ...and the table still comes at the end.
    assert shown.index("[2/2] C-2.json") < shown.index("Claims reviewed")


def test_a_run_with_nothing_to_review_says_so_in_one_line(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    console = Console(record=True, width=200)
    assert review_inbox(inbox, 1, console, llm_for=responding()) == 0
    shown = console.export_text()
    assert f"0 claim file(s) in {inbox}; nothing to review." in shown
    assert "reviewing" not in shown and "Claims reviewed" not in shown  # no bar, no table


def _refused(name: str) -> BatchItem:
    return BatchItem(Path("inbox") / name, None, "not valid JSON", code="malformed")


def test_lines_count_against_the_total_until_it_is_passed() -> None:
    """A run knows how many claims it has to review; a worker does not (its queue is shared and
    grows), and neither does a run whose workers took claims of other inboxes too."""
    console = Console(record=True, width=200)
    with BatchProgress(console, 1) as known:
        known.finished(_refused("a.json"))
        known.finished(_refused("b.json"))
    with BatchProgress(console, None) as unknown:
        unknown.finished(_refused("c.json"))
        unknown.finished(_refused("d.json"))
    lines = [line for line in console.export_text().splitlines() if line.startswith("[")]
    assert lines == [
        "[1/1] a.json: bad claim file (malformed): not valid JSON",
        "[2] b.json: bad claim file (malformed): not valid JSON",
        "[1] c.json: bad claim file (malformed): not valid JSON",
        "[2] d.json: bad claim file (malformed): not valid JSON",
    ]
