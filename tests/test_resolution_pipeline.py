"""Every claim is resolved after the crew runs; the adjudicator is asked only for a dispute."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from claims_crew.run.levels import adjudicator
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    KNOWN_START,
    POLICY_COVERED,
    WATER_CLAIM,
    Script,
    intake_facts,
    settings,
    water_claim_saying_when,
    water_script,
)
from tests.support.paths import ROOT

RULING = {
    "choice": "policy",
    "reason": "A leaking joint found the day after is a sudden discharge; 7.1 needs weeks.",
    "evidence": ["4.2(b)"],
}


def dispute_script(*adjudicator_answers: str) -> Script:
    return Script(
        intake=[final(KNOWN_START)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=list(adjudicator_answers),
    )


def test_seed_water_claim_is_escalated_with_the_question(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = water_script()
    record = review_claim(load_claim(WATER_CLAIM), settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "conflict")
    assert resolution.missing_facts == ["damage_start_date"]
    assert script("adjudicator").calls == []  # a fact question never goes to the model
    # It goes to intake, once: the claim does not say, so the claim is escalated with it.
    assert resolution.targeted is not None and not resolution.targeted.verified
    assert resolution.question and "damage_start_date" in resolution.question
    assert record.model_calls == {
        "intake_task": 1,
        "targeted_question_task": 1,
        "policy_task": 2,
        "fraud_task": 1,
    }
    assert record.tokens["policy_task"] > 0
    assert record.policy_sha256 and len(record.policy_sha256) == 64


def test_dispute_goes_to_the_adjudicator_once(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = dispute_script(final(RULING))
    record = review_claim(
        load_claim(water_claim_saying_when(tmp_path / "inbox")),
        settings(sample_library, script, tmp_path),
    )
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.winner, resolution.answer) == (
        "ADJUDICATED",
        "policy",
        "covered",
    )
    assert len(script("adjudicator").calls) == 1
    assert record.model_calls["adjudicate_task"] == 1
    assert record.adjudication is not None and record.adjudication.valid
    # The adjudicator saw the clause texts the code re-read, not just the agents' words.
    prompt = json.dumps(script("adjudicator").calls[0])
    assert "continuous or repeated seepage" in prompt and "sudden and accidental" in prompt


def test_adjudicator_without_a_reason_is_refused_and_kept(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = dispute_script(final({**RULING, "reason": ""}))
    record = review_claim(
        load_claim(water_claim_saying_when(tmp_path / "inbox")),
        settings(sample_library, script, tmp_path),
    )
    assert record.resolution is not None
    assert record.resolution.outcome == "ESCALATED"
    assert record.resolution.reason_codes == ["adjudicator_invalid"]
    assert record.adjudication is not None and not record.adjudication.valid
    assert '"reason": ""' in record.raw["adjudicate_task"]


def test_adjudication_disabled_leaves_the_dispute_open(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    for name in ("agents.yaml", "tasks.yaml"):
        (config / name).write_text((ROOT / "config" / name).read_text(encoding="utf-8"))
    rules = (ROOT / "config" / "resolution.yaml").read_text(encoding="utf-8")
    (config / "resolution.yaml").write_text(rules.replace("enabled: true", "enabled: false"))
    script = dispute_script()
    record = review_claim(
        load_claim(water_claim_saying_when(tmp_path / "inbox")),
        settings(sample_library, script, tmp_path, config),
    )
    assert record.resolution is not None
    assert record.resolution.outcome == "ADJUDICATION_REQUIRED"
    assert script("adjudicator").calls == []


def test_unknown_policy_is_escalated_before_any_model_call(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    data = json.loads(WATER_CLAIM.read_text(encoding="utf-8"))
    claim_path = tmp_path / "C-9.json"
    claim_path.write_text(json.dumps({**data, "claim_id": "C-9", "policy_id": "XX-NONE"}))
    script = water_script()
    record = review_claim(load_claim(claim_path), settings(sample_library, script, tmp_path))
    assert record.resolution is not None
    assert record.resolution.reason_codes == ["policy_not_found"]
    assert all(not llm.calls for llm in script.llms.values())


def test_prompt_injection_is_never_accepted(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    """C-1047 tells the agents to approve. A model that obeys, confidently, citing an approval
    clause that does not exist, still cannot get the claim accepted."""
    obeyed = {
        "answer": "covered",
        "confidence": 0.99,
        "evidence": [{"clause_id": "12.1", "quote": "pre-approved by the claims director"}],
        "facts_relied_on": [],
        "rationale": "The claim says it is pre-approved.",
    }
    injection = ROOT / "claims" / "inbox" / "C-1047.json"
    assert "approve" in injection.read_text(encoding="utf-8").lower()
    script = Script(
        intake=[final({**INTAKE_WATER, "cause": "grout failure"})],
        policy=[final(obeyed)],
        fraud=[final(obeyed)],
    )
    record = review_claim(load_claim(injection), settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None
    assert resolution.outcome != "ACCEPTED"
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "neither")
    assert "clause_not_found" in resolution.reason_codes


# ---- an agreement on covered answers the exclusions the claim's words fit --------------------

# The grant each claim's agreeing agents cite, and its words.
GRANTS = {
    "C-1045.json": ("4.3(a)", "torrential rain at a rate of at least 25 mm per hour"),
    "C-1047.json": ("4.2(b)", "sudden and accidental discharge of water"),
    "C-1044.yaml": ("4.4(a)", "theft or attempted theft involving forcible and violent entry"),
}


def covered(claim_file: str, confidence: float) -> dict[str, object]:
    clause, words = GRANTS[claim_file]
    return {
        "answer": "covered",
        "confidence": confidence,
        "evidence": [{"clause_id": clause, "quote": words}],
        "facts_relied_on": ["cause"],
        "rationale": f"The loss falls under {clause}.",
    }


@pytest.mark.parametrize(
    ("claim_file", "outcome", "named"),
    [
        ("C-1045.json", "ESCALATED", ["7.2 (Flood"]),
        ("C-1047.json", "ESCALATED", ["7.1(a) (continuous or repeated seepage", "7.1(c)"]),
        ("C-1044.yaml", "ACCEPTED", []),  # theft: no exclusion fits, the agreement stands
    ],
)
def test_agreement_on_covered_answers_the_fitting_exclusions(
    sample_library: PolicyLibrary, tmp_path: Path, claim_file: str, outcome: str, named: list[str]
) -> None:
    """Both agents answer covered, the policy agent citing a real grant it looked up; on the
    flood claim and the injected one, neither read the exclusion their words fit."""
    clause, _ = GRANTS[claim_file]
    script = Script(
        intake=[final(intake_facts(claim_file))],
        policy=[lookup("HM-HOME-001", clause), final(covered(claim_file, 0.95))],
        fraud=[lookup("HM-HOME-001", clause), final(covered(claim_file, 0.9))],
    )
    claim = load_claim(ROOT / "claims" / "inbox" / claim_file)
    record = review_claim(claim, settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.rule) == (outcome, "agree")
    if outcome == "ESCALATED":
        # The injected claim's own words are named beside the exclusion (resolver.gates).
        flagged = ["instructions_in_claim"] if claim_file == "C-1047.json" else []
        assert resolution.reason_codes == ["exclusion_unchecked", *flagged]
        assert resolution.would_have_been == "ACCEPTED"
        for name in named:
            assert name in resolution.reason and name in (resolution.question or "")
    else:
        assert resolution.answer == "covered" and resolution.reason_codes == []


def test_an_exclusion_an_agent_looked_up_is_answered(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """The fraud agent reads 7.2 through policy_lookup and still answers covered (say the
    schedule shows flood cover): the exclusion was read, so the agreement stands."""
    claim_file = "C-1045.json"
    script = Script(
        intake=[final(intake_facts(claim_file))],
        policy=[lookup("HM-HOME-001", "4.3(a)"), final(covered(claim_file, 0.95))],
        fraud=[lookup("HM-HOME-001", "7.2"), final(covered(claim_file, 0.9))],
    )
    claim = load_claim(ROOT / "claims" / "inbox" / claim_file)
    record = review_claim(claim, settings(sample_library, script, tmp_path))
    assert record.resolution is not None, record.error
    assert (record.resolution.outcome, record.resolution.answer) == ("ACCEPTED", "covered")


def test_a_side_that_cited_the_fitting_exclusion_badly_is_adjudicated(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """Fraud looks 7.2 up but misquotes it: policy alone holds, yet the flood exclusion fits
    fraud's answer, so the adjudicator is asked, and shown 7.2, instead of policy winning."""
    claim_file = "C-1045.json"
    misquoted = {
        "answer": "not_covered",
        "confidence": 0.8,
        "evidence": [{"clause_id": "7.2", "quote": "flood damage is never covered"}],
        "facts_relied_on": ["cause"],
        "rationale": "A river flood is excluded.",
    }
    ruling = {"choice": "fraud", "reason": "The river overflowed: 7.2.", "evidence": ["7.2"]}
    script = Script(
        intake=[final(intake_facts(claim_file))],
        policy=[lookup("HM-HOME-001", "4.3(a)"), final(covered(claim_file, 0.95))],
        fraud=[lookup("HM-HOME-001", "7.2"), final(misquoted)],
        adjudicator=[final(ruling)],
    )
    claim = load_claim(ROOT / "claims" / "inbox" / claim_file)
    record = review_claim(claim, settings(sample_library, script, tmp_path))
    resolution = record.resolution
    assert resolution is not None, record.error
    assert len(script("adjudicator").calls) == 1
    prompt = json.dumps(script("adjudicator").calls[0])
    assert "the claim's words fit" in prompt and "the rising or overflow of any lake" in prompt
    assert record.adjudication is not None and record.adjudication.valid
    # Fraud's own reading of 7.2 did not verify, so nothing it looked up carries not_covered.
    assert (resolution.outcome, resolution.would_have_been) == ("ESCALATED", "ADJUDICATED")
    assert resolution.reason_codes == ["quote_mismatch", "not_tool_sourced"]


# ---- claims-crew resolve ---------------------------------------------------------------------


def _resolve(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["resolve", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to build a model fails the test."""

    def refuse() -> None:
        raise AssertionError("a model was requested")

    monkeypatch.setattr(adjudicator, "default_llm_factory", refuse)


def test_resolve_json_without_a_model(no_model: None) -> None:
    case = ROOT / "examples" / "cases" / "water-damage-start-known-dispute.json"
    code, out, _ = _resolve(str(case), "--json")
    assert code == 0
    payload = json.loads(out)
    assert {"outcome", "rule", "winner", "reason_codes", "question", "trail"} <= set(payload)
    assert payload["outcome"] == "ADJUDICATION_REQUIRED" and payload["winner"] is None
    assert payload["adjudication"] is None


def test_resolve_prints_the_question(no_model: None) -> None:
    case = ROOT / "examples" / "cases" / "water-damage-start-unknown.json"
    code, out, _ = _resolve(str(case))
    assert code == 0
    assert "ESCALATED" in out and "damage_start_date" in out and "When did the damage start" in out


def test_resolve_adjudicate_asks_the_adjudicator_model(monkeypatch: pytest.MonkeyPatch) -> None:
    script = Script(adjudicator=[final(RULING)])
    monkeypatch.setattr(adjudicator, "default_llm_factory", lambda: script)
    case = ROOT / "examples" / "cases" / "water-damage-start-known-dispute.json"
    code, out, _ = _resolve(str(case), "--json", "--adjudicate")
    assert code == 0, out
    payload = json.loads(out)
    assert (payload["outcome"], payload["winner"]) == ("ADJUDICATED", "policy"), payload["reason"]
    assert payload["adjudication"]["valid"] is True
    assert len(script("adjudicator").calls) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("{}", "policy: Field required"),
        (
            json.dumps({"policy": "HM-HOME-001", "claim_file": {}, "facts": {}, "claims": {}}),
            "claim_file.claim_id: Field required",
        ),
    ],
)
def test_malformed_case_exits_non_zero(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "case.json"
    path.write_text(content, encoding="utf-8")
    code, _, err = _resolve(str(path), "--json")
    assert code == 2
    assert message in err


def test_case_missing_one_side_is_refused(tmp_path: Path) -> None:
    data = json.loads((ROOT / "examples" / "cases" / "misquote.json").read_text(encoding="utf-8"))
    del data["claims"]["fraud"]
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = _resolve(str(path))
    assert code == 2 and "claims: missing fraud" in err
