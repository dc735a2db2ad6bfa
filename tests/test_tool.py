"""PolicyLookupTool._run on the sample policies: clauses, searches, misses, and refusals."""

from __future__ import annotations

import shutil
from pathlib import Path

from claims_crew.policy.library import PolicyLibrary
from claims_crew.tools.policy_lookup import PolicyLookupArgs, PolicyLookupTool, clause_ids_in
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


def test_neither_clause_nor_query_asks_for_one(sample_library: PolicyLibrary) -> None:
    out = _tool(sample_library)._run(policy_id="HM-HOME-001")
    assert "clause_id" in out and clause_ids_in(out) == []


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
