"""Hints that run where they are printed: each names the command as the person started it,
`uv run claims-crew …` when the process was started through uv (which sets UV), through the one
function settings/command.py. Through the real CLI: an escalated claim's letter and the queue."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.settings.command import command
from claims_crew.store import Store
from tests.support.letters import letter
from tests.support.store import record_for, water_loaded

UV = {"UV": "/usr/local/bin/uv"}


@pytest.fixture
def escalated(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """The water claim escalated (policy cites 4.2(b), fraud 7.1)."""
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    store.record(record_for(water, sample_library), None, water)
    return store


def test_the_command_is_named_as_the_person_started_it() -> None:
    assert command("review list", UV) == "uv run claims-crew review list"
    assert command("review list", {}) == "claims-crew review list"
    assert command("", UV) == "uv run claims-crew"


@pytest.mark.usefixtures("escalated")
def test_the_letter_hint_names_uv_run_when_started_through_uv(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("UV", UV["UV"])
    code, _, err = letter("C-1042")
    assert code == 2
    assert "no letter until it is decided (uv run claims-crew review decide)" in err
    monkeypatch.delenv("UV")
    code, _, err = letter("C-1042")
    assert "(claims-crew review decide)" in err and "uv run" not in err


@pytest.mark.usefixtures("escalated")
def test_the_queue_and_show_hints_name_uv_run_when_started_through_uv() -> None:
    listed = CliRunner(env=UV).invoke(main, ["review", "list"])
    assert listed.exit_code == 0, listed.output
    assert "Open one with: uv run claims-crew review show CLAIM_ID" in listed.output
    shown = CliRunner(env=UV).invoke(main, ["claim", "show", "C-1042"])
    assert shown.exit_code == 0, shown.output
    assert "decide with: uv run claims-crew review show C-1042" in shown.output
    plain = CliRunner().invoke(main, ["review", "list"])
    assert "Open one with: claims-crew review show CLAIM_ID" in plain.output


def test_config_check_names_every_key_desk_yaml_may_hold(tmp_path: Path) -> None:
    from claims_crew.config_check.source import load_file

    (tmp_path / "desk.yaml").write_text("decide_without_clauses: []\n", encoding="utf-8")
    loaded = load_file(tmp_path, "desk.yaml", [])
    assert loaded is not None
    from claims_crew.config_check.desk import check_desk

    [problem] = check_desk(loaded)
    for key in ("assignment", "four_eyes", "decide_without_clause"):
        assert key in problem.hint
