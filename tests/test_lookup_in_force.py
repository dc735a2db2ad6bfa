"""policy_lookup built for a claim reads the claim's wording in force: a clause an endorsement
changed comes back as amended, with the endorsement named, and a deleted one says so; through
the crew, an agent that quotes the form's replaced words is not decided on them."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.crew.crew import ClaimsCrew
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from claims_crew.tools.policy_lookup import PolicyLookupTool, clause_ids_in
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    WATER_CLAIM,
    Script,
    settings,
    start_date_answer,
)
from tests.support.in_force import AMENDED_4_2_B, issued_by_hand
from tests.support.paths import SAMPLE_POLICIES

REPLACED = "amended_by: endorsement HM-E-07 (page 1), replaced"


@pytest.fixture
def library(session_cache: Path, monkeypatch: pytest.MonkeyPatch) -> PolicyLibrary:
    return issued_by_hand(PolicyLibrary(root=SAMPLE_POLICIES, cache_dir=session_cache), monkeypatch)


def tool(library: PolicyLibrary, number: str | None = "HM-25-00417") -> PolicyLookupTool:
    return PolicyLookupTool(
        library=library,
        allowed_policies=frozenset({"HM-HOME-001"}),
        policy_number=number,
        date_of_loss=date(2025, 3, 10),
    )


def test_a_changed_clause_is_the_amended_text_with_its_endorsement(library: PolicyLibrary) -> None:
    out = tool(library)._run(policy_id="HM-HOME-001", clause_id="clause 4.2b")
    assert clause_ids_in(out) == ["4.2(b)"]  # the clause_id line is as before
    assert REPLACED in out.splitlines()
    assert out.endswith(AMENDED_4_2_B)


def test_an_unchanged_clause_has_no_amended_by_line(library: PolicyLibrary) -> None:
    out = tool(library)._run(policy_id="HM-HOME-001", clause_id="4.2(a)")
    assert clause_ids_in(out) == ["4.2(a)"] and "amended_by" not in out


def test_a_deleted_clause_says_which_endorsement_deleted_it(library: PolicyLibrary) -> None:
    out = tool(library)._run(policy_id="HM-HOME-001", clause_id="7.11")
    assert clause_ids_in(out) == ["7.11"]
    assert "amended_by: endorsement HM-E-99 (page 2), deleted" in out
    assert "[deleted by endorsement HM-E-99 (page 2): no longer in force]" in out
    assert "market value" not in out


def test_a_search_hit_on_a_changed_clause_says_so(library: PolicyLibrary) -> None:
    out = tool(library)._run(policy_id="HM-HOME-001", query="household appliance discharge")
    assert "4.2(b)" in clause_ids_in(out)  # the id is still parsed off the line
    [line] = [x for x in out.splitlines() if x.startswith("clause_id: 4.2(b) |")]
    assert "| amended_by: endorsement HM-E-07 (page 1), replaced |" in line


def test_without_a_policy_number_the_form_is_read(library: PolicyLibrary) -> None:
    out = tool(library, None)._run(policy_id="HM-HOME-001", clause_id="4.2(b)")
    assert "amended_by" not in out and "10 years" not in out


def test_an_unknown_policy_number_is_reported_not_raised(library: PolicyLibrary) -> None:
    out = tool(library, "HM-25-99999")._run(policy_id="HM-HOME-001", clause_id="4.2(b)")
    assert "[unknown_policy]" in out and clause_ids_in(out) == []


def test_the_crew_builds_its_tools_for_the_claims_policy(library: PolicyLibrary) -> None:
    crew = ClaimsCrew(
        "HM-HOME-001",
        Script(),
        library,
        policy_number="HM-25-00417",
        date_of_loss=date(2025, 3, 10),
    )
    for agent in (crew.policy(), crew.fraud()):
        [built] = agent.tools
        assert isinstance(built, PolicyLookupTool)
        assert (built.policy_number, built.date_of_loss) == ("HM-25-00417", date(2025, 3, 10))
        assert REPLACED in built._run(policy_id="HM-HOME-001", clause_id="4.2(b)")


def test_through_the_crew_the_forms_replaced_words_decide_nothing(
    library: PolicyLibrary, tmp_path: Path
) -> None:
    """C-1042 on HM-25-00417: the policy agent looks 4.2(b) up and is shown the amended clause
    with its endorsement, yet quotes the form's words; the claim goes to a person."""
    data = json.loads(WATER_CLAIM.read_text(encoding="utf-8"))
    data["policy_number"] = "HM-25-00417"
    path = tmp_path / "C-1042.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    form_quote = (
        "from within a plumbing, heating or air conditioning system or a household appliance"
    )
    covered = {**POLICY_COVERED, "evidence": [{"clause_id": "4.2(b)", "quote": form_quote}]}
    script = Script(
        intake=[final(INTAKE_WATER), final(start_date_answer(None))],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(covered)],
        fraud=[final(FRAUD_EXCLUDED)],
    )
    policy = script("policy")
    record = review_claim(load_claim(path), settings(library, script, tmp_path))
    assert REPLACED in str(policy.calls[-1])  # what the agent was shown
    resolution = record.resolution
    assert resolution is not None and not resolution.decided
    assert "superseded_wording" in resolution.reason_codes
    [check] = resolution.sides["policy"].clauses
    assert check.status == "superseded" and check.text == AMENDED_4_2_B
