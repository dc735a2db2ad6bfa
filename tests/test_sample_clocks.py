"""The sample claims' clocks count from the day the store first received them, so a first run
shows due dates ahead; a real claim's clock counts from its date_reported, as ever (both
engines, each claim run as `claims-crew run` runs it, with scripted models).

"Now" is moved with CLAIMS_CREW_NOW, never by waiting: here to the day the store received the
claim, whatever the day the test runs."""

from __future__ import annotations

import json
import shutil
from datetime import date, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient
from rich.console import Console

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.crew.inputs import kickoff_inputs
from claims_crew.desk import clocks
from claims_crew.review.web import create_app
from claims_crew.store import Store
from tests.support.crew import WATER_CLAIM, water_script
from tests.support.paths import ROOT
from tests.support.store import water_loaded

pytestmark = pytest.mark.usefixtures("engine")


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})


def run(inbox: Path) -> None:
    console = Console(record=True, width=200)
    assert review_inbox(inbox, 1, console, llm_for=water_script()) == 0, console.export_text()


def test_every_shipped_claim_is_a_sample_the_agents_are_not_told_of() -> None:
    files = [p for p in (ROOT / "claims" / "inbox").iterdir() if p.suffix in (".json", ".yaml")]
    assert len(files) >= 17
    for path in files:
        loaded = load_claim(path)
        assert loaded.claim.sample, path
        shown = kickoff_inputs(loaded, ("covered",), "")["claim_text"]
        assert '"sample"' not in shown and loaded.claim.claimant in shown


def test_a_sample_claim_escalated_today_is_due_ahead_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signed_in_page: TestClient
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(WATER_CLAIM, inbox / WATER_CLAIM.name)  # reported 2025-11-04, marked sample
    run(inbox)
    store = Store()
    received = store.first_received("C-1042")
    assert received is not None and received > date(2025, 11, 4)
    monkeypatch.setenv(clocks.NOW_VARIABLE, received.isoformat())
    [escalation] = store.open_escalations()
    assert escalation.acknowledge_by == (received + timedelta(days=15)).isoformat()
    assert escalation.decide_by == (received + timedelta(days=30)).isoformat()

    listed = cli("review", "list", "--json")
    assert [r["due"] for r in json.loads(listed.stdout)["escalations"]] == ["due in 30 days"]
    assert "overdue" not in cli("review", "list").output
    assert json.loads(cli("report", "--json").stdout)["desk"]["overdue"] == 0
    page = signed_in_page.get("/").text
    assert "due in 30 days" in page and "overdue by" not in page
    shown = cli("review", "show", "C-1042").output
    assert "due in 30 days" in shown and "overdue" not in shown

    # A later version of the file (a new hash: `review stale` sees it) keeps the first day.
    later = json.loads(WATER_CLAIM.read_text(encoding="utf-8"))
    (inbox / WATER_CLAIM.name).write_text(json.dumps({**later, "amount": 4300}), "utf-8")
    assert cli("ingest", str(inbox)).exit_code == 0
    assert [c.claim_id for c in store.changed_after_decision()] == ["C-1042"]
    assert store.first_received("C-1042") == received


def test_a_real_claim_reported_long_ago_is_overdue_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = water_loaded(tmp_path / "inbox", "C-1042")  # the same claim, not a sample
    assert not loaded.claim.sample
    run(tmp_path / "inbox")
    [escalation] = Store().open_escalations()
    assert (escalation.acknowledge_by, escalation.decide_by) == ("2025-11-19", "2025-12-04")
    monkeypatch.setenv(clocks.NOW_VARIABLE, "2025-12-10")
    rows = json.loads(cli("review", "list", "--json").stdout)["escalations"]
    assert [r["due"] for r in rows] == ["overdue by 6 days"]


def test_a_sample_clock_starts_on_the_day_received_or_today() -> None:
    reported, received = date(2025, 11, 4), date(2026, 3, 1)
    assert clocks.clock_start(reported, False, received) == reported
    assert clocks.clock_start(reported, True, received) == received
    assert clocks.clock_start(reported, True, None) == clocks.today()


@pytest.fixture
def signed_in_page() -> TestClient:
    """The review page over the test's store, signed in as ana."""
    store = Store()
    token = store.add_reviewer("ana")
    page = TestClient(create_app(store, ["testserver"]), follow_redirects=False)
    csrf = page.get("/login").context["csrf"]  # type: ignore[attr-defined]
    assert page.post("/login", data={"token": token, "csrf": csrf}).status_code == 303
    return page
