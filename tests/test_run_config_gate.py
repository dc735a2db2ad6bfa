"""`crewai run` and `claims-crew run` check the config first and spend no model call on a
broken one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.errors import ConfigError
from tests.support.crew import WATER_CLAIM, Script
from tests.support.paths import ROOT


@pytest.fixture
def broken_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    tasks = (config / "tasks.yaml").read_text(encoding="utf-8")
    (config / "tasks.yaml").write_text(tasks.replace("agent: fraud", "agent: fraudster"))
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(WATER_CLAIM, inbox / WATER_CLAIM.name)
    return inbox


def test_review_refuses_a_broken_config_before_any_model_call(broken_config: Path) -> None:
    script = Script()
    with pytest.raises(ConfigError, match="fraudster"):
        review_inbox(broken_config, 1, Console(), llm_for=script)
    assert all(not llm.calls for llm in script.llms.values())


def test_run_command_exits_non_zero_with_the_problem(broken_config: Path) -> None:
    result = CliRunner().invoke(main, ["run", "--inbox", str(broken_config)])
    assert result.exit_code == 1
    assert "fraudster" in result.stderr and "tasks.yaml" in result.stderr
