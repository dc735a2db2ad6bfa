"""The local model's grammar offers exactly the answers resolution.yaml allows (no weights load)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from claims_crew.crew.crew import ClaimsCrew
from claims_crew.llms.base import Request
from claims_crew.llms.local import LocalLLM, answer_schema_for
from claims_crew.llms.select import default_llm_factory
from claims_crew.models import ClaimAnswer
from claims_crew.policy.library import PolicyLibrary
from claims_crew.vocabulary import ABSTAIN_REASONS, ABSTENTION, DEFAULT_ANSWERS
from tests.conftest import ROOT

THREE_ANSWERS = ["covered", "not_covered", "partially_covered"]


def config_allowing(tmp_path: Path, answers: list[str]) -> Path:
    """A copy of config/ whose resolution.yaml allows `answers`."""
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    path = config / "resolution.yaml"
    rules = yaml.safe_load(path.read_text(encoding="utf-8"))
    rules["allowed_answers"] = answers
    kinds = rules["evidence_kinds"]
    rules["evidence_kinds"] = {a: kinds.get(a, ["limit", "condition"]) for a in answers}
    path.write_text(yaml.safe_dump(rules), encoding="utf-8")
    return config


def offered_answers(grammar: str) -> list[str]:
    """The answers the grammar's answer rules let the model write, over every answer shape."""
    found = re.findall(r"^final-answer(?:-\d+)?-answer ::= (.+)$", grammar, re.MULTILINE)
    assert found, grammar
    return [json.loads(json.loads(c)) for rule in found for c in rule.split(" | ")]


def schema_answers(schema: dict[str, Any]) -> list[str]:
    shapes = schema.get("anyOf", [schema])
    return [a for shape in shapes for a in shape["properties"]["answer"]["enum"]]


@pytest.mark.parametrize(
    ("answers", "offered"),
    [
        (None, [*DEFAULT_ANSWERS, ABSTENTION]),
        (THREE_ANSWERS, THREE_ANSWERS),
        ([*DEFAULT_ANSWERS], list(DEFAULT_ANSWERS)),
    ],
    ids=["shipped config", "three answers", "no abstention"],
)
def test_the_grammar_for_a_task_offers_the_configured_answers(
    tmp_path: Path,
    sample_library: PolicyLibrary,
    monkeypatch: pytest.MonkeyPatch,
    answers: list[str] | None,
    offered: list[str],
) -> None:
    monkeypatch.delenv("MODEL", raising=False)
    config = ROOT / "config" if answers is None else config_allowing(tmp_path, answers)
    crew = ClaimsCrew("HM-HOME-001", default_llm_factory(config), sample_library, config)
    for task in (crew.policy_task(), crew.fraud_task()):
        llm = task.agent.llm
        assert isinstance(llm, LocalLLM)
        assert task.output_pydantic is not None
        schema = answer_schema_for(task.output_pydantic, llm.allowed_answers)
        assert schema_answers(schema) == offered
        request = Request(
            [{"role": "user", "content": "Review claim C-1042."}], None, task, task.agent
        )
        assert offered_answers(llm.grammar_for(request)) == offered


def test_the_local_model_falls_back_to_the_default_answers() -> None:
    assert LocalLLM.from_environment().allowed_answers == DEFAULT_ANSWERS


def test_the_grammar_pairs_an_abstention_with_its_reason() -> None:
    """uncertain comes with a typed reason, and any other answer with none: the grammar cannot
    write the mix the resolver refuses."""
    [answer, abstain] = answer_schema_for(ClaimAnswer, [*DEFAULT_ANSWERS, ABSTENTION])["anyOf"]
    assert answer["properties"]["answer"] == {"enum": list(DEFAULT_ANSWERS)}
    assert answer["properties"]["abstain_reason"] == {"type": "null"}
    assert abstain["properties"]["answer"] == {"enum": [ABSTENTION]}
    assert abstain["properties"]["abstain_reason"] == {"enum": list(ABSTAIN_REASONS)}
    assert "abstain_reason" in answer["required"] and "abstain_reason" in abstain["required"]
    definite = answer_schema_for(ClaimAnswer, list(DEFAULT_ANSWERS))
    assert "anyOf" not in definite
    assert definite["properties"]["abstain_reason"] == {"type": "null"}
