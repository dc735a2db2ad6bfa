"""`crewai run` and `claims-crew run` check the config first and spend no model call on a
broken one; a config CrewAI would stall on (human_input) or leak claim data with (output_file)
is refused the same way, before CrewAI is even imported."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.errors import ConfigError
from tests.support.crew import WATER_CLAIM, Script
from tests.support.paths import ROOT

# Each broken config: the edit to tasks.yaml, and a word the refusal must name.
BROKEN = {
    "unknown-agent": ("  agent: fraud\n", "  agent: fraudster\n", "fraudster"),
    "human-input": ("  agent: fraud\n", "  agent: fraud\n  human_input: true\n", "human_input"),
    "output-file": ("  agent: fraud\n", "  agent: fraud\n  output_file: fraud.md\n", "output_file"),
}


@pytest.fixture(params=sorted(BROKEN))
def broken(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, str]:
    """An inbox holding the water claim, under a config broken one way; and the word to name."""
    old, new, word = BROKEN[request.param]
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    tasks = (config / "tasks.yaml").read_text(encoding="utf-8")
    assert tasks.count(old) == 1
    (config / "tasks.yaml").write_text(tasks.replace(old, new), encoding="utf-8")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    monkeypatch.chdir(tmp_path)  # where output_file would write
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(WATER_CLAIM, inbox / WATER_CLAIM.name)
    return inbox, word


def test_review_refuses_a_broken_config_before_any_model_call(broken: tuple[Path, str]) -> None:
    inbox, word = broken
    script = Script()
    with pytest.raises(ConfigError, match=word):
        review_inbox(inbox, 1, Console(), llm_for=script)
    assert all(not llm.calls for llm in script.llms.values())
    assert not (inbox.parent / "fraud.md").exists()


def test_run_command_exits_non_zero_with_the_problem(broken: tuple[Path, str]) -> None:
    inbox, word = broken
    result = CliRunner().invoke(main, ["run", "--inbox", str(inbox)])
    assert result.exit_code == 1
    assert word in result.stderr and "tasks.yaml" in result.stderr


def test_a_refused_run_never_imports_crewai(broken: tuple[Path, str]) -> None:
    """Refusing takes the config check alone, not the seconds CrewAI takes to import."""
    inbox, word = broken
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from claims_crew.cli import main\n"
        f"r = CliRunner().invoke(main, ['run', '--inbox', {str(inbox)!r}])\n"
        f"assert r.exit_code == 1 and {word!r} in r.stderr, r.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('crewai', 'litellm')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
