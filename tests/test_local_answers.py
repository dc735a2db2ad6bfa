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
from claims_crew.llms.local import (
    MAX_TOKENS,
    SCHEMA_OPENING,
    LocalLLM,
    answer_schema_for,
    compact_schemas,
)
from claims_crew.llms.select import default_llm_factory
from claims_crew.models import (
    AdjudicatorAnswer,
    ClaimAnswer,
    IntakeFacts,
    parse_adjudication,
    parse_claim,
    parse_intake,
)
from claims_crew.policy.library import PolicyLibrary
from claims_crew.vocabulary import ABSTAIN_REASONS, ABSTENTION, DEFAULT_ANSWERS
from tests.support.paths import ROOT

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


def longest(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The longest value a schema lets the grammar write, as compact JSON would spell it: every
    string, list and number at its bound, the longest of every choice."""
    defs = schema.get("$defs", {}) if defs is None else defs
    if "$ref" in schema:
        return longest(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    options = schema.get("enum") or [longest(s, defs) for s in schema.get("anyOf", [])]
    if options:
        return max(options, key=lambda v: len(json.dumps(v)))
    kind = schema.get("type")
    if kind == "object":
        return {k: longest(v, defs) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return [longest(schema["items"], defs)] * schema["maxItems"]
    if kind == "string" and schema.get("format") == "date":
        return "2025-11-03"
    if kind == "string":
        bound = re.fullmatch(r"\^\[.*\]\{\d+,(\d+)\}\$", schema["pattern"])
        assert bound, schema["pattern"]
        return "w" * int(bound[1])
    if kind == "number":
        return 1234567890123456.5  # the grammar's longest integral part, and a fraction
    assert kind == "null", schema
    return None


def test_the_longest_answer_the_grammar_allows_is_valid_and_never_cut_off(
    sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every step ends inside max_tokens even at one character a token, so no answer is cut off
    mid-string, and the longest answer still parses as the task's output model."""
    monkeypatch.delenv("MODEL", raising=False)
    crew = ClaimsCrew("HM-HOME-001", default_llm_factory(), sample_library, ROOT / "config")
    allowed = (*DEFAULT_ANSWERS, ABSTENTION)
    parse = {
        IntakeFacts: parse_intake,
        ClaimAnswer: lambda raw: parse_claim(raw, allowed),
        AdjudicatorAnswer: parse_adjudication,
    }
    for task in (crew.intake_task(), crew.policy_task(), crew.fraud_task(), crew.adjudicate_task()):
        assert task.output_pydantic is not None
        llm = task.agent.llm
        assert isinstance(llm, LocalLLM)
        request = Request([{"role": "user", "content": "Review."}], None, task, task.agent)
        thought = re.search(r"^thought ::= \[.*\]\{1,(\d+)\}$", llm.grammar_for(request), re.M)
        assert thought, task.name
        schema = answer_schema_for(task.output_pydantic, allowed, task.expected_output)
        answer = json.dumps(longest(schema), separators=(",", ":"))
        step = f"Thought: {'w' * int(thought[1])}\nFinal Answer: {answer}"
        assert len(step) <= MAX_TOKENS, (task.name, len(step))
        parsed = parse[task.output_pydantic](answer)
        assert isinstance(parsed, task.output_pydantic), (task.name, parsed)


def test_the_grammar_asks_only_for_what_the_task_asks_and_the_code_does_not_compute(
    sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Intake's unknowns are recomputed from its null facts, and red flags are the fraud task's
    question, not the policy task's: the model writes neither."""
    monkeypatch.delenv("MODEL", raising=False)
    crew = ClaimsCrew("HM-HOME-001", default_llm_factory(), sample_library, ROOT / "config")
    fields = {}
    for task in (crew.intake_task(), crew.policy_task(), crew.fraud_task()):
        assert task.output_pydantic is not None
        schema = answer_schema_for(task.output_pydantic, DEFAULT_ANSWERS, task.expected_output)
        fields[task.name] = set(schema["properties"])
    assert "unknowns" not in fields["intake_task"]
    assert {"loss_type", "cause", "date_of_loss", "amount_claimed"} <= fields["intake_task"]
    assert "red_flags" not in fields["policy_task"]
    assert fields["fraud_task"] == fields["policy_task"] | {"red_flags"}
    # Without the intake's unknowns, the code still lists the facts left null.
    facts = parse_intake(json.dumps({"loss_type": "theft", "cause": None, "date_of_loss": None}))
    assert isinstance(facts, IntakeFacts)
    assert facts.unknowns == ["cause", "date_of_loss", "damage_start_date", "amount_claimed"]


def test_the_schema_crewai_writes_into_a_prompt_reaches_the_model_compact(
    sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The policy task's prompt as CrewAI builds it: the same schema and the same words around
    it, with the schema's indentation gone."""
    from crewai.agent.utils import build_task_prompt_with_schema

    monkeypatch.delenv("MODEL", raising=False)
    crew = ClaimsCrew("HM-HOME-001", default_llm_factory(), sample_library, ROOT / "config")
    task = crew.policy_task()
    prompt = build_task_prompt_with_schema(task, task.prompt())
    compact = compact_schemas(prompt)
    before, _, schema_text = prompt.partition(SCHEMA_OPENING)
    after_before, _, compact_text = compact.partition(SCHEMA_OPENING)
    assert after_before == before
    schema, end = json.JSONDecoder().raw_decode(schema_text)
    compact_schema, compact_end = json.JSONDecoder().raw_decode(compact_text)
    assert compact_schema == schema and "properties" in schema
    assert compact_text[compact_end:] == schema_text[end:]  # CrewAI's words after it
    assert "\n" not in compact_text[:compact_end] and compact_end < 0.8 * end


def test_text_without_a_schema_after_the_opening_is_left_as_it_is() -> None:
    for text in (
        "Review claim C-1042.",
        f"{SCHEMA_OPENING}not JSON {SCHEMA_OPENING}",
        f'{SCHEMA_OPENING}{{"a": [1, 2]}} then {SCHEMA_OPENING}{{"b":',
    ):
        expected = text.replace('{"a": [1, 2]}', '{"a":[1,2]}')
        assert compact_schemas(text) == expected
