"""`claims-crew prompt`: the messages an agent gets, rendered by CrewAI itself, with no model."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from claims_crew import records
from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.crew.prompt_preview import PLACEHOLDER_DISPUTE, render_prompt
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Store
from tests.support.crew import INTAKE_WATER, WATER_CLAIM, settings, water_script
from tests.support.paths import ROOT


def prompt_json(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(main, ["prompt", *args, "--claim", str(WATER_CLAIM), "--json"])
    return result.exit_code, json.loads(result.output)


def user_text(payload: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in payload["messages"] if m["role"] == "user")


def system_text(payload: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in payload["messages"] if m["role"] == "system")


def store_intake(raw: str) -> None:
    now = datetime.now(UTC)
    record = records.ClaimRecord(
        claim_id="C-1042",
        claim_file=str(WATER_CLAIM),
        claim_sha256="0" * 64,
        policy_id="HM-HOME-001",
        status="reviewed",
        raw={"intake_task": raw},
        started_at=now,
        finished_at=now,
    )
    Store().record(record)


def test_intake_prompt_has_system_task_inputs_and_schema() -> None:
    code, payload = prompt_json("intake_task")
    assert code == 0
    assert payload["agent"] == "intake" and payload["context"] == "none"
    system = system_text(payload)
    assert "You are Claims intake analyst." in system
    assert "Extract the facts of claim C-1042" in system  # the goal, with its input filled in
    user = user_text(payload)
    assert "Read claim C-1042 below and extract its facts." in user
    assert '"claim_id": "C-1042"' in user  # {claim_text}
    assert "{claim_id}" not in user and "{claim_text}" not in user
    assert payload["tools"] == []
    assert payload["output_schema"]["title"] == "IntakeFacts"
    assert "damage_start_date" in payload["output_schema"]["properties"]
    # Every stated fact names its source, and the prompt and the schema both say so.
    assert "sources maps every fact that is not null to where the claim states it" in user
    source = payload["output_schema"]["$defs"]["FactSource"]
    assert set(source["properties"]) == {"where", "quote"}
    assert source["additionalProperties"] is False


def test_policy_prompt_marks_missing_intake_as_placeholder_and_offers_the_tool() -> None:
    code, payload = prompt_json("policy_task")
    assert code == 0
    assert payload["context"] == "placeholder"
    assert "<<placeholder: claim C-1042 has no stored intake result yet" in user_text(payload)
    [tool] = payload["tools"]
    assert tool["name"] == "policy_lookup"
    assert set(tool["args"]["properties"]) == {"policy_id", "clause_id", "query"}
    assert "Tool Name: policy_lookup" in system_text(payload)  # offered in the ReAct prompt
    assert "one of covered, not_covered, uncertain" in user_text(payload)
    assert "abstain_reason" in user_text(payload)
    assert payload["output_schema"]["title"] == "ClaimAnswer"


def test_fraud_prompt_uses_the_stored_intake_result() -> None:
    stored = json.dumps({**INTAKE_WATER, "cause": "slow drip behind the bath panel"})
    store_intake(stored)
    code, payload = prompt_json("fraud_task")
    assert code == 0
    assert payload["context"] == "stored"
    assert stored in user_text(payload)
    assert "placeholder" not in user_text(payload)


def test_adjudicator_prompt_marks_the_dispute_as_placeholder() -> None:
    code, payload = prompt_json("adjudicate_task")
    assert code == 0
    assert payload["agent"] == "adjudicator"
    assert PLACEHOLDER_DISPUTE in user_text(payload)
    assert "You are Coverage adjudicator." in system_text(payload)


def test_editing_a_task_description_changes_the_prompt(tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    tasks = yaml.safe_load((config / "tasks.yaml").read_text(encoding="utf-8"))
    tasks["intake_task"]["description"] = (
        "Read claim {claim_id} and say when the damage started, quoting the words.\n\n{claim_text}"
    )
    (config / "tasks.yaml").write_text(yaml.safe_dump(tasks, sort_keys=False), encoding="utf-8")

    before = CliRunner().invoke(
        main,
        [
            "prompt",
            "intake_task",
            "--claim",
            str(WATER_CLAIM),
            "--config-dir",
            str(ROOT / "config"),
        ],
        env={"COLUMNS": "400"},
    )
    after = CliRunner().invoke(
        main,
        ["prompt", "intake_task", "--claim", str(WATER_CLAIM), "--config-dir", str(config)],
        env={"COLUMNS": "400"},
    )
    assert after.exit_code == 0, after.output
    assert "say when the damage started, quoting the words" in after.output
    assert "Read claim C-1042 below and extract its facts." not in after.output
    assert before.output != after.output


def test_prompt_is_exactly_what_a_run_sends(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    """The scripted run's first model call for each agent equals the rendered prompt."""
    script = water_script()
    record = review_claim(load_claim(WATER_CLAIM), settings(sample_library, script, tmp_path))
    assert record.status == "reviewed", record.error
    intake = record.raw["intake_task"]
    for task, agent in (("intake_task", "intake"), ("policy_task", "policy")):
        rendered = render_prompt(
            task,
            WATER_CLAIM,
            ROOT / "config",
            sample_library,
            llm_for=water_script(),
            stored_intake=intake,
        )
        assert rendered.messages == script.llms[agent].calls[0], task


def test_broken_config_stops_prompt_before_crewai(tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    text = (config / "tasks.yaml").read_text(encoding="utf-8")
    (config / "tasks.yaml").write_text(text.replace("{claim_text}", "{claim_txt}"), "utf-8")
    result = CliRunner().invoke(
        main,
        ["prompt", "intake_task", "--claim", str(WATER_CLAIM), "--config-dir", str(config)],
    )
    assert result.exit_code == 2
    assert "{claim_txt} is not supplied by the pipeline" in result.output


@pytest.mark.parametrize("task", ["summary_task", "intake"])
def test_unknown_task_is_a_usage_error(task: str) -> None:
    result = CliRunner().invoke(main, ["prompt", task, "--claim", str(WATER_CLAIM)])
    assert result.exit_code == 2
    assert "intake_task" in result.output  # click lists the tasks there are
