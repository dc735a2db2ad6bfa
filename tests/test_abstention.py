"""An agent may say it cannot tell: through the real crew, the store, the report and the review.

The scripted model answers `uncertain` with a typed reason, as the task prompt offers; the
resolver asks a person what the agent could not settle, the review views show the abstention
and its reason, and the report counts abstentions per agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.llms.scripted import final, lookup
from claims_crew.models import Claim
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord
from claims_crew.report import load_rows
from claims_crew.report.evaluate import evaluate
from claims_crew.run.context import build_context
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    WATER_CLAIM,
    Script,
    start_date_answer,
)
from tests.support.paths import ROOT

KNOWN_START = {**INTAKE_WATER, "damage_start_date": "2025-11-02", "unknowns": []}
CANNOT_READ = {
    "answer": "Uncertain",  # normalised like any other allowed answer
    "confidence": 0.5,
    "abstain_reason": "interpretation_unresolved",
    "evidence": [{"clause_id": "7.1", "quote": "over a period of weeks or months"}],
    "facts_relied_on": ["damage_start_date"],
    "rationale": "A joint leaking for a day is neither clearly sudden nor weeks of seepage.",
}
NEEDS_DATE = {
    "answer": "uncertain",
    "confidence": 0.4,
    "abstain_reason": "needs_more_evidence",
    "evidence": [],
    "facts_relied_on": ["damage_start_date"],
    "rationale": "Covered if sudden, excluded if it ran for weeks; the start date decides.",
}


def review(
    library: PolicyLibrary,
    store: Store,
    tmp_path: Path,
    claim_id: str,
    intake: dict[str, Any],
    policy: dict[str, Any],
    fraud: dict[str, Any],
) -> ClaimRecord:
    data = {**json.loads(WATER_CLAIM.read_text(encoding="utf-8")), "claim_id": claim_id}
    path = tmp_path / "inbox" / f"{claim_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    script = Script(
        # Asked the targeted question (a conflict over the open start date), null.
        intake=[final(intake), final(start_date_answer(None))],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(policy)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(fraud)],
    )
    loaded = load_claim(path)
    settings = build_context(
        library=library, llm_for=script, config_dir=ROOT / "config", store=store
    )
    record = review_claim(loaded, settings)
    assert record.status == "reviewed", record.error
    store.record(record, None, loaded)
    return record


@pytest.mark.slow
def test_an_abstaining_agent_sends_the_claim_to_a_person(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    sure = {**POLICY_COVERED, "confidence": 0.95}
    record = review(sample_library, Store(), tmp_path, "C-1042", KNOWN_START, sure, CANNOT_READ)
    assert isinstance(record.fraud, Claim)
    assert (record.fraud.answer, record.fraud.abstain_reason) == (
        "uncertain",
        "interpretation_unresolved",
    )
    resolution = record.resolution
    assert resolution is not None
    # One abstaining agent is enough (abstention.escalate_when: either), however sure the other.
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "abstain")
    assert resolution.reason_codes == ["abstained", "interpretation_unresolved"]
    assert resolution.question and "Which reading" in resolution.question
    fraud = resolution.sides["fraud"]
    assert not fraud.holds and fraud.clauses[0].status == "verified"


def test_the_review_and_the_report_show_abstentions(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    store = Store()
    review(sample_library, store, tmp_path, "C-1", KNOWN_START, POLICY_COVERED, CANNOT_READ)
    review(sample_library, store, tmp_path, "C-2", INTAKE_WATER, NEEDS_DATE, FRAUD_EXCLUDED)
    review(sample_library, store, tmp_path, "C-3", INTAKE_WATER, POLICY_COVERED, FRAUD_EXCLUDED)
    review(sample_library, store, tmp_path, "C-4", INTAKE_WATER, NEEDS_DATE, NEEDS_DATE)
    store.add_reviewer("ana")
    store.decide(
        "C-2", "covered", "The plumber dates the leak to the day before.", "ana", rules=DeskRules()
    )

    shown = CliRunner().invoke(main, ["review", "show", "C-2", "--json"])
    assert shown.exit_code == 0, shown.output
    detail = json.loads(shown.stdout)
    assert detail["sides"]["policy"]["abstain_reason"] == "needs_more_evidence"
    assert detail["sides"]["fraud"]["abstain_reason"] is None
    assert detail["question"] == "damage_start_date: When did the damage start?"
    terminal = CliRunner().invoke(main, ["review", "show", "C-1"], env={"COLUMNS": "200"})
    assert "abstains: interpretation_unresolved" in terminal.output

    report = CliRunner().invoke(main, ["report", "--json"])
    assert report.exit_code == 0, report.output
    overall = json.loads(report.stdout)["overall"]

    def m(count: int, denominator: int) -> dict[str, Any]:
        return {"figure": round(count / denominator, 6), "count": count, "denominator": denominator}

    assert overall["abstentions"] == {"policy": m(2, 4), "fraud": m(2, 4)}
    assert overall["abstention_reasons"]["policy"]["needs_more_evidence"] == m(2, 2)
    assert overall["abstention_reasons"]["fraud"]["interpretation_unresolved"] == m(1, 2)
    assert overall["escalation_reasons"]["abstained"] == m(3, 4)
    # An abstention is no conflict: only C-3's agents conflict, and only its intake was asked.
    assert overall["evidence_requests"] == m(1, 4)
    table = CliRunner().invoke(main, ["report"], env={"COLUMNS": "200"})
    assert "Abstentions" in table.output
    # An abstention claims nothing a reviewer can agree with: it is not in the calibration.
    policy, fraud = json.loads(report.stdout)["reviews"]["agents"]
    assert (policy["agent"], policy["agreed"]["denominator"]) == ("policy", 0)
    assert (fraud["agent"], fraud["agreed"]) == ("fraud", m(0, 1))
    # Two abstentions are no consensus, right or wrong.
    evaluation = evaluate(load_rows(store), {"C-4": "covered", "C-3": "covered"})
    assert evaluation.consensus_error.denominator == 0
