"""The README's "Then" steps, taken in the order it gives them, work: the lead is added first,
the token it prints goes into CLAIMS_CREW_REVIEWER_TOKEN as the printed line says, and the
decision that follows is made as that person. A desk left with no lead is warned of."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.cli.acting import TOKEN_VARIABLE
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")


def then_steps() -> list[str]:
    """The README's "Then" block, one command a line, as printed."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Then", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def _step(steps: list[str], start: str) -> int:
    return next(i for i, step in enumerate(steps) if step.startswith(start))


def test_the_readme_then_steps_run_in_order_and_the_decision_is_the_leads(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    store.record(record_for(water, sample_library), None, water)
    steps = then_steps()
    add, keep, decide = (
        _step(steps, "uv run claims-crew reviewers add"),
        _step(steps, f"export {TOKEN_VARIABLE}="),
        _step(steps, "uv run claims-crew review decide"),
    )
    assert add < keep < decide, steps
    runner = CliRunner()
    added = runner.invoke(main, shlex.split(steps[add])[3:], env={TOKEN_VARIABLE: None})
    assert added.exit_code == 0, added.output
    exported = [line.strip() for line in added.stdout.splitlines() if "export " in line]
    assert len(exported) == 1 and exported[0].startswith(f"export {TOKEN_VARIABLE}=")
    token = exported[0].split("=", 1)[1]
    assert "no lead" not in added.stderr  # the README's first reviewer is the lead
    decided = runner.invoke(main, shlex.split(steps[decide])[3:], env={TOKEN_VARIABLE: token})
    assert decided.exit_code == 0, decided.output
    assert store.escalation("C-1042").decided_by == "dana"


def test_reviewers_add_warns_while_the_desk_has_no_lead(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(main, ["reviewers", "add", "ana"], env={TOKEN_VARIABLE: None})
    assert first.exit_code == 0, first.output
    assert "warning: the desk has no lead" in first.stderr
    assert "reviewers set NAME --role lead" in first.stderr
    token = first.stdout.splitlines()[1]
    assert f"export {TOKEN_VARIABLE}={token}" in first.stdout
    lead = runner.invoke(
        main, ["reviewers", "add", "lee", "--role", "lead"], env={TOKEN_VARIABLE: token}
    )
    assert lead.exit_code == 0, lead.output
    assert "no lead" not in lead.stderr
