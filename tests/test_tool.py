"""PolicyLookupTool on the sample policies: clauses, searches, misses, and refusals, called
directly and through CrewAI's tool machinery."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from claims_crew.tools.policy_lookup import (
    NEITHER,
    PolicyLookupArgs,
    PolicyLookupTool,
    clause_ids_in,
)
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    WATER_CLAIM,
    Script,
    looked_up,
    settings,
    start_date_answer,
)
from tests.support.paths import SAMPLE_POLICIES


def _tool(library: PolicyLibrary, allowed: set[str] | None = None) -> PolicyLookupTool:
    return PolicyLookupTool(
        library=library, allowed_policies=frozenset(allowed) if allowed else None
    )


def test_lookup_returns_text_kind_page_and_canonical_id(sample_library: PolicyLibrary) -> None:
    out = _tool(sample_library)._run(policy_id="HM-HOME-001", clause_id="clause 7.1")
    assert clause_ids_in(out) == ["7.1"]
    assert "kind: exclusion" in out and "pages: 4" in out
    assert "continuous or repeated seepage or leakage" in out  # sub-clause (a) is included


def test_search_returns_ranked_clause_ids(sample_library: PolicyLibrary) -> None:
    out = _tool(sample_library)._run(policy_id="HM-HOME-001", query="burst pipe plumbing")
    ids = clause_ids_in(out)
    assert ids[0] == "4.2(a)"
    assert len(ids) <= 5


def test_a_miss_is_readable_text_with_near_ids(sample_library: PolicyLibrary) -> None:
    out = _tool(sample_library)._run(policy_id="HM-HOME-001", clause_id="4.7")
    assert clause_ids_in(out) == []
    assert out.startswith("No clause '4.7'") and "4.2" in out


def test_tool_refuses_another_claims_policy(sample_library: PolicyLibrary) -> None:
    out = _tool(sample_library, {"HM-HOME-001"})._run(policy_id="MR-AUTO-001", clause_id="1")
    assert clause_ids_in(out) == []
    assert "HM-HOME-001" in out


@pytest.mark.parametrize(
    "args",
    [{}, {"clause_id": None, "query": None}, {"clause_id": "  ", "query": ""}],
    ids=["left-out", "null", "blank"],
)
def test_neither_clause_nor_query_is_refused_by_the_arguments(
    sample_library: PolicyLibrary, args: dict[str, Any]
) -> None:
    """CrewAI validates the arguments before the tool runs (BaseTool.run, and the structured
    tool the agents call); the reason names both ways to call it."""
    tool = _tool(sample_library)
    with pytest.raises(ValueError, match=re.escape(NEITHER)):
        tool.run(policy_id="HM-HOME-001", **args)
    with pytest.raises(ValueError, match=re.escape(NEITHER)):
        tool.to_structured_tool().invoke({"policy_id": "HM-HOME-001", **args})
    # Either one alone is enough, the other left null.
    by_id = tool.run(policy_id="HM-HOME-001", clause_id="7.1", query=None)
    by_words = tool.run(policy_id="HM-HOME-001", clause_id=None, query="burst pipe")
    assert clause_ids_in(by_id) == ["7.1"] and clause_ids_in(by_words)[0] == "4.2(a)"


def test_an_agent_that_gives_neither_reads_why_and_asks_again(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """Through the crew: the refusal is the tool's answer in the agent's next prompt."""
    neither = json.dumps({"policy_id": "HM-HOME-001", "clause_id": None, "query": None})
    script = Script(
        intake=[final(INTAKE_WATER), final(start_date_answer(None))],
        policy=[
            f"Thought: I should read it.\nAction: policy_lookup\nAction Input: {neither}",
            lookup("HM-HOME-001", "4.2(b)"),
            final(POLICY_COVERED),
        ],
        fraud=[final(FRAUD_EXCLUDED)],
    )
    policy = script("policy")
    review_claim(load_claim(WATER_CLAIM), settings(sample_library, script, tmp_path))
    first, second, *_ = policy.calls
    assert NEITHER not in str(first) and NEITHER in str(second)
    assert looked_up(policy.calls[-1])  # the lookup it made next was answered


def test_the_schema_the_provider_sees_says_either() -> None:
    """CrewAI sends a strict schema: every key required, each of clause_id and query nullable,
    and their descriptions say to leave one null."""
    from crewai.utilities.agent_utils import convert_tools_to_openai_schema

    [sent], _, _ = convert_tools_to_openai_schema([PolicyLookupTool()])
    params = sent["function"]["parameters"]
    clause, query = params["properties"]["clause_id"], params["properties"]["query"]
    assert {"type": "null"} in clause["anyOf"] and {"type": "null"} in query["anyOf"]
    assert "null to search with query instead" in clause["description"]
    assert "null when giving clause_id" in query["description"]
    assert PolicyLookupArgs.model_json_schema()["required"] == ["policy_id"]


def test_unreadable_policy_is_reported_not_raised(tmp_path: Path) -> None:
    root = tmp_path / "policies"
    root.mkdir()
    shutil.copy(SAMPLE_POLICIES / "index.yaml", root / "index.yaml")
    (root / "harbour_home.pdf").write_bytes(b"%PDF-1.7\nnot really\n")
    library = PolicyLibrary(root=root, cache_dir=tmp_path / "cache")
    out = _tool(library)._run(policy_id="HM-HOME-001", clause_id="4.2(b)")
    assert "[malformed]" in out and clause_ids_in(out) == []


def test_args_schema_is_the_contract() -> None:
    tool = PolicyLookupTool()
    assert tool.name == "policy_lookup"
    assert tool.args_schema is PolicyLookupArgs
    assert set(PolicyLookupArgs.model_fields) == {"policy_id", "clause_id", "query"}
