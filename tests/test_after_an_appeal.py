"""What people read about a claim after its appeal: the inbox file sent again is the one first
decided, not a changed file; and an appeal's escalation that nobody may take says why (the one
reviewer who fits decided it first), as the desk found it when it assigned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.desk import DeskRules
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.appeal import appeal
from claims_crew.run.context import build_context
from claims_crew.store import Store
from tests.support.crew import water_script
from tests.support.paths import ROOT
from tests.support.store import water_loaded

pytestmark = [pytest.mark.usefixtures("engine"), pytest.mark.slow]  # two crew reviews


@pytest.fixture
def appealed(tmp_path: Path, sample_library: PolicyLibrary) -> Path:
    """C-1042 reviewed from the inbox, decided by ana (the desk's one reviewer, every line),
    then appealed with a plumber's report: back to the queue, and ana may not take it."""
    inbox = tmp_path / "inbox"
    water_loaded(inbox, "C-1042")
    assert review_inbox(inbox, 1, Console(record=True), llm_for=water_script()) == 0
    store = Store()
    store.add_reviewer("ana")
    store.decide("C-1042", "not_covered", "Gradual seepage, as 7.1 says.", "ana", rules=DeskRules())
    new = tmp_path / "plumber-report.txt"
    new.write_text("The joint under the bath split on 3 November 2025.", encoding="utf-8")
    settings = build_context(
        library=sample_library, llm_for=water_script(), store=store, config_dir=ROOT / "config"
    )
    done = appeal(settings, "C-1042", [new], "The plumber dates the leak.")
    assert done.error is None and done.escalated and done.previous_reviewer == "ana"
    return inbox


def test_after_an_appeal_the_inbox_file_is_decided_and_the_queue_says_who_is_left_out(
    appealed: Path,
) -> None:
    again = CliRunner().invoke(main, ["ingest", str(appealed), "--json"])
    assert again.exit_code == 0, again.output
    states = {r["claim_id"]: r["state"] for r in json.loads(again.stdout)["files"]}
    assert states == {"C-1042": "decided"}
    listed = CliRunner().invoke(main, ["review", "list", "--json"])
    assert json.loads(listed.stdout)["changed_after_decision"] == []
    shown = CliRunner().invoke(main, ["review", "list"])
    assert "changed after their decision" not in shown.output
    # One appeal's two readings share its two crew reviews: the second is below.
    _says_its_first_decider_is_left_out()


def _says_its_first_decider_is_left_out() -> None:
    """The appeal's escalation nobody may take: ana, the one reviewer, decided it first."""
    listed = CliRunner().invoke(main, ["review", "list"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    said = " ".join(listed.stdout.split())
    assert (
        "C-1042: appealed; unassigned: an appeal never goes to ana, who decided it first, "
        "and no other reviewer fits its line of business"
    ) in said
    assert "unassigned: no reviewer fits" not in said
