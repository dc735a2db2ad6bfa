"""The real crew, with only the model scripted: tools run, events fire, outputs parse."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from claims_crew.claim_files import load_claim
from claims_crew.crew.crew import ClaimsCrew
from claims_crew.errors import ConfigError
from claims_crew.llms.scripted import final, lookup
from claims_crew.models import Claim, ClaimAnswer, IntakeFacts, ParseFailure
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    WATER_CLAIM,
    Script,
    config_with,
    settings,
    start_date_answer,
    water_script,
)
from tests.support.paths import ROOT


def test_water_claim_through_the_real_crew(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    script = water_script()
    record = review_claim(load_claim(WATER_CLAIM), settings(sample_library, script, tmp_path))
    assert record.status == "reviewed", record.error
    assert isinstance(record.intake, IntakeFacts)
    assert record.intake.damage_start_date is None
    assert "damage_start_date" in record.intake.unknowns
    assert isinstance(record.policy, Claim) and isinstance(record.fraud, Claim)
    assert (record.policy.answer, record.fraud.answer) == ("covered", "not_covered")
    # The tool really ran for the policy agent, and the ledger saw it through CrewAI's events.
    [entry] = record.ledger
    assert entry.tool == "policy_lookup" and entry.returned_clause_ids == ["4.2(b)"]
    assert entry.task_name == "policy_task"
    assert record.policy.source_checked is True
    assert record.fraud.source_checked is False  # 7.1 was cited from memory


def test_agent_that_claims_source_checked_without_the_tool_is_caught(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    liar = {**FRAUD_EXCLUDED, "source_checked": True}
    script = Script(
        intake=[final(INTAKE_WATER), final(start_date_answer(None))],  # the start: not stated
        policy=[lookup("HM-HOME-001", "7.1"), final(POLICY_COVERED)],  # looked up 7.1, cites 4.2(b)
        fraud=[final(liar)],
    )
    record = review_claim(load_claim(WATER_CLAIM), settings(sample_library, script, tmp_path))
    assert isinstance(record.fraud, Claim) and record.fraud.source_checked is False
    assert isinstance(record.policy, Claim) and record.policy.source_checked is False
    assert '"source_checked": true' in record.raw["fraud_task"]  # kept as said, not believed


@pytest.mark.parametrize(
    ("junk", "reason"),
    [
        ("I think this claim is probably covered.", "not a JSON object"),
        ('{"answer": "covered", "confidence": NaN, "evidence": []}', "NaN is not a number"),
        ('{"answer": "covered", "confidence": "0.9", "evidence": []}', "confidence"),
        ('{"answer": "approve", "confidence": 0.9, "evidence": []}', "not one of"),
        ('{"answer": "covered", "confidence": 1.7, "evidence": []}', "confidence"),
    ],
)
def test_junk_answers_become_typed_parse_errors(
    sample_library: PolicyLibrary, tmp_path: Path, junk: str, reason: str
) -> None:
    script = Script(
        intake=[final(INTAKE_WATER)],
        policy=[final(junk)],
        fraud=[final(FRAUD_EXCLUDED)],
    )
    record = review_claim(load_claim(WATER_CLAIM), settings(sample_library, script, tmp_path))
    assert record.status == "reviewed"
    assert isinstance(record.policy, ParseFailure)
    assert reason in record.policy.reason
    assert record.policy.raw == junk
    assert isinstance(record.fraud, Claim)  # one agent's junk does not cost the others' work
    assert len(script.llms["policy"].calls) == 1  # no hidden extra call to "fix" the answer


def test_yaml_edit_to_a_goal_reaches_the_prompt(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    goal = "Check claim {claim_id} for staged water damage, clause by clause."
    config = config_with(tmp_path, "fraud", "goal", goal)
    script = water_script()
    review_claim(load_claim(WATER_CLAIM), settings(sample_library, script, tmp_path, config))
    system = script.llms["fraud"].calls[0][0]["content"]
    assert "Check claim C-1042 for staged water damage, clause by clause." in system


def test_every_yaml_key_has_its_crew_method_and_config_is_loaded(
    sample_library: PolicyLibrary,
) -> None:
    crew = ClaimsCrew("HM-HOME-001", Script(), sample_library, ROOT / "config")
    agents = yaml.safe_load((ROOT / "config" / "agents.yaml").read_text(encoding="utf-8"))
    tasks = yaml.safe_load((ROOT / "config" / "tasks.yaml").read_text(encoding="utf-8"))
    for name in [*agents, *tasks]:
        assert callable(getattr(crew, name)), name
    assert set(crew.agents_config) == set(agents) and set(crew.tasks_config) == set(tasks)
    assert crew.tasks_config["policy_task"]["agent"].role == agents["policy"]["role"]
    assert crew.policy_task().output_pydantic is ClaimAnswer


def test_missing_config_file_is_an_error_not_an_empty_crew(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    (tmp_path / "agents.yaml").write_text("intake: {}\n")
    with pytest.raises(ConfigError, match=r"tasks\.yaml"):
        ClaimsCrew("HM-HOME-001", Script(), sample_library, tmp_path)


def test_models_are_keyed_by_agent_name_whatever_the_role_says(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    config = config_with(tmp_path, "policy", "role", "Senior coverage counsel")
    run = settings(sample_library, water_script(), tmp_path, config)
    loaded = load_claim(WATER_CLAIM)
    record = review_claim(loaded, run)
    assert record.models == {
        "intake": "scripted-intake",
        "policy": "scripted-policy",
        "fraud": "scripted-fraud",
        "adjudicator": "scripted-adjudicator",
    }
    run.store.record(record, None, loaded)
    [entry] = run.store.audit_entries("C-1042")
    assert entry.models["policy"] == "scripted-policy"
