"""The desk's clocks: deadlines from config/clocks.yaml by jurisdiction, kept on each escalation,
shown as due or overdue, the queue in deadline order, and `review list --overdue`.

"Now" is moved with CLAIMS_CREW_NOW, never by waiting."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.desk import clocks
from claims_crew.errors import ConfigError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.crew import water_script
from tests.support.paths import ROOT
from tests.support.store import back_to, record_for, water_loaded

# C-1042 was reported on 2025-11-04: 15 days to acknowledge, 30 to decide by default, and 40 to
# decide in US-CA (config/clocks.yaml).
DEFAULT_DUE, CA_DUE = "2025-12-04", "2025-12-14"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "160"})


def listed(*args: str) -> dict[str, object]:
    result = cli("review", "list", "--json", *args)
    assert result.exit_code == 0, result.output
    payload: dict[str, object] = json.loads(result.stdout)
    return payload


def test_the_shipped_table_names_its_source_and_the_naic_days() -> None:
    table = clocks.load_clocks(ROOT / "config")
    assert "NAIC" in table.source
    assert (table.default.acknowledge_days, table.default.decide_days) == (15, 30)
    assert table.clock("US-CA").decide_days == 40
    assert table.clock("XX-UNLISTED") == table.default and table.clock(None) == table.default
    assert table.problems() == []


def test_deadlines_count_calendar_days_from_the_day_reported() -> None:
    table = clocks.load_clocks(ROOT / "config")
    due = clocks.deadlines(table, date(2025, 11, 4), None)
    assert (due.acknowledge_by, due.decide_by) == ("2025-11-19", DEFAULT_DUE)
    assert clocks.deadlines(table, date(2025, 11, 4), "US-CA").decide_by == CA_DUE


@pytest.mark.parametrize(
    ("days", "shown"),
    [(3, "due in 3 days"), (1, "due in 1 day"), (0, "due today"), (-1, "overdue by 1 day"),
     (-6, "overdue by 6 days"), (None, "no clock")],
)  # fmt: skip
def test_due_text(days: int | None, shown: str) -> None:
    assert clocks.due_text(days) == shown


def test_now_is_moved_by_the_setting_and_a_bad_one_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(clocks.NOW_VARIABLE, "2025-12-10")
    assert clocks.today() == date(2025, 12, 10)
    monkeypatch.setenv(clocks.NOW_VARIABLE, "2025-12-10T23:30:00-05:00")
    assert clocks.today() == date(2025, 12, 11)  # in UTC
    monkeypatch.setenv(clocks.NOW_VARIABLE, "next tuesday")
    with pytest.raises(ConfigError, match="CLAIMS_CREW_NOW"):
        clocks.now()


def test_a_bad_table_is_refused_naming_the_key(tmp_path: Path) -> None:
    (tmp_path / "clocks.yaml").write_text(
        "source: x\ndefault: {acknowledge_days: -1, decide_days: 30}\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"default\.acknowledge_days"):
        clocks.load_clocks(tmp_path)
    (tmp_path / "clocks.yaml").write_text("default: {}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="source"):
        clocks.load_clocks(tmp_path)


def test_without_a_table_the_naic_defaults_run(tmp_path: Path) -> None:
    assert clocks.load_clocks(tmp_path) == clocks.DEFAULT_TABLE


def test_config_check_reports_a_table_that_decides_before_it_acknowledges(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    for name in ("agents.yaml", "tasks.yaml", "resolution.yaml", "prices.yaml"):
        if (ROOT / "config" / name).exists():
            (config / name).write_bytes((ROOT / "config" / name).read_bytes())
    table = yaml.safe_load((ROOT / "config" / "clocks.yaml").read_text(encoding="utf-8"))
    table["jurisdictions"]["US-CA"] = {"acknowledge_days": 20, "decide_days": 10}
    (config / "clocks.yaml").write_text(yaml.safe_dump(table), encoding="utf-8")
    result = cli("config", "check", "--config-dir", str(config))
    assert "clocks.yaml" in result.output and "US-CA" in result.output, result.output
    (config / "clocks.yaml").write_text("source: [\n", encoding="utf-8")
    bad = cli("config", "check", "--config-dir", str(config))
    assert bad.exit_code != 0 and "clocks.yaml" in bad.output, bad.output


@pytest.mark.usefixtures("engine")
def test_an_overdue_escalation_is_listed_by_overdue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each claim run as `claims-crew run` runs it; the scripted models answer one claim each.
    for claim_id, place in (("C-1042", None), ("C-1099", "US-CA")):
        inbox = tmp_path / claim_id
        water_loaded(inbox, claim_id, **({"jurisdiction": place} if place else {}))
        console = Console(record=True, width=200)
        assert review_inbox(inbox, 1, console, llm_for=water_script()) == 0
    [california] = [e for e in Store().open_escalations() if e.claim_id == "C-1099"]
    assert (california.jurisdiction, california.decide_by) == ("US-CA", CA_DUE)

    monkeypatch.setenv(clocks.NOW_VARIABLE, "2025-11-20")
    assert listed("--overdue")["escalations"] == []
    rows = listed()["escalations"]
    assert isinstance(rows, list)
    assert [(r["claim_id"], r["due"]) for r in rows] == [
        ("C-1042", "due in 14 days"),
        ("C-1099", "due in 24 days"),
    ]

    monkeypatch.setenv(clocks.NOW_VARIABLE, "2025-12-10")
    late = listed("--overdue")
    assert late["total"] == 1
    assert [(r["claim_id"], r["due"]) for r in late["escalations"]] == [  # type: ignore[attr-defined]
        ("C-1042", "overdue by 6 days")
    ]
    text = cli("review", "list", "--overdue")
    assert text.exit_code == 0 and "1 overdue escalation(s)" in text.output
    assert "overdue by 6 days" in text.output and "C-1099" not in text.output
    shown = cli("review", "show", "C-1099")
    assert "due in 4 days" in shown.output and f"decide by {CA_DUE}" in shown.output


@pytest.mark.usefixtures("engine")
def test_escalations_opened_before_the_clocks_get_the_default_clock_on_upgrade(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    water = water_loaded(tmp_path / "inbox", "C-1042", jurisdiction="US-CA")
    store.record(record_for(water, sample_library), None, water)
    back_to(store, "0010_audit_entry_signatures")
    store.close()
    [escalation] = Store().open_escalations()
    # The default row, whatever the claim names: the upgrade reads no config.
    assert (escalation.acknowledge_by, escalation.decide_by) == ("2025-11-19", DEFAULT_DUE)
    assert Store().verify_audit().ok
