"""The report's desk figures: open escalations by days waiting, overdue, and the share
acknowledged and decided within the clocks; pure, then through `claims-crew report` on both
engines with the clock moved by CLAIMS_CREW_NOW."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.desk import Assigner, DeskRules, clocks
from claims_crew.policy.library import PolicyLibrary
from claims_crew.report.desk import desk_figures
from claims_crew.store import Basis, EscalationClock, Store
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded


def clock(opened: str, state: str = "open", decided: str | None = None) -> EscalationClock:
    """An escalation on C-1042's default clock: acknowledge by 11-19, decide by 12-04."""
    return EscalationClock(state, f"{opened}T09:00:00.000000Z", decided, "2025-11-19", "2025-12-04")


def test_ageing_buckets_overdue_and_on_time_rates() -> None:
    rows = [
        # Open, all past the day to decide (12-04) on 12-10; by days waiting:
        clock("2025-12-08"),  # 2, acknowledged late (after 11-19)
        clock("2025-11-30"),  # 10, acknowledged late
        clock("2025-11-10"),  # 30
        clock("2025-09-01"),  # 100
        clock("2025-11-25", "decided", "2025-12-01T10:00:00.000000Z"),  # acknowledged late
        clock("2025-11-05", "decided", "2025-12-06T10:00:00.000000Z"),  # decided late
        EscalationClock("open", "2025-12-09T09:00:00.000000Z", None, None, None),
    ]
    desk = desk_figures(rows, date(2025, 12, 10))
    assert [(b.label, b.count) for b in desk.ageing] == [
        ("0-7 days", 2),
        ("8-15 days", 1),
        ("16-30 days", 1),
        ("31-60 days", 0),
        ("61+ days", 1),
    ]
    assert (desk.open, desk.overdue, desk.no_clock) == (5, 4, 1)
    assert (desk.acknowledged_on_time.count, desk.acknowledged_on_time.denominator) == (3, 6)
    assert (desk.decided_on_time.count, desk.decided_on_time.denominator) == (1, 2)


def test_no_escalations_gives_empty_rates() -> None:
    desk = desk_figures([], date(2025, 12, 10))
    assert desk.open == 0 and desk.decided_on_time.figure is None


@pytest.mark.usefixtures("engine")
def test_the_report_shows_the_desk_in_json_text_and_html(
    tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()
    table = clocks.load_clocks(ROOT / "config")
    for claim_id in ("C-1042", "C-1043"):
        water = water_loaded(tmp_path / "inbox", claim_id)
        basis = Basis(
            deadlines=clocks.deadlines(table, water.claim.date_reported, None), assign=Assigner()
        )
        store.record(record_for(water, sample_library), None, water, basis)
    store.add_reviewer("ana")
    store.decide(
        "C-1043", "covered", "Sudden.", "ana", rules=DeskRules()
    )  # today: long after 2025-12-04
    monkeypatch.setenv(clocks.NOW_VARIABLE, "2025-12-10")

    result = CliRunner().invoke(main, ["report", "--json"])
    assert result.exit_code == 0, result.output
    desk = json.loads(result.stdout)["desk"]
    assert desk["on"] == "2025-12-10" and desk["open"] == 1 and desk["overdue"] == 1
    assert desk["acknowledged_on_time"]["denominator"] == 2
    assert (desk["decided_on_time"]["count"], desk["decided_on_time"]["denominator"]) == (0, 1)

    text = CliRunner().invoke(main, ["report"], env={"COLUMNS": "160"})
    assert "Open escalations by days waiting" in text.output
    assert "decided within the clock" in text.output and "0 of 1" in text.output
    page = tmp_path / "report.html"
    assert CliRunner().invoke(main, ["report", "--html", str(page)]).exit_code == 0
    html = page.read_text(encoding="utf-8")
    assert 'id="ageing"' in html and "decided within the clock" in html
