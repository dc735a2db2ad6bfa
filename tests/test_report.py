"""`claims-crew report`: every figure of `--json` against counts made by hand from KNOWN.

The thirteen decisions (tests/support/report.py), as the resolver decided them:

  R01 ACCEPTED covered        water, start known       both 4.2(b)
  R02 ACCEPTED covered        theft, start null        both 4.4(a)
  R03 PREFERRED covered       water, start known       policy 4.2(b), fraud cites a missing 9.4
  R04 ESCALATED conflict      water, start null        4.2(b) vs 7.1; human: covered
  R05 ESCALATED conflict      water, start null        4.2(b) vs 7.1; human: not_covered
  R06 ESCALATED conflict      water, loss date disputed; human: needs_more_evidence
  R07 ADJUDICATED covered     water, start known       adjudicator chose policy
  R08 ADJUDICATION_REQUIRED   water, start known       dispute left open; human: covered
  R09 ESCALATED adjudicator_invalid (no reason given)
  R10 ESCALATED parse_error   fraud's answer unreadable; human: covered
  R11 ESCALATED low_confidence theft, both 0.6;        human: covered
  R12 ESCALATED policy_gate   theft, 30,000 claimed;   human: not_covered
                over_authority  and 29,750 payable, over the 25,000 authority limit
  R13 ESCALATED policy_not_found, no model asked
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.report import build_report, load_rows, row_from
from claims_crew.run.context import build_context
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Escalation, NotFound, Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    KNOWN_START,
    POLICY_COVERED,
    STARTED,
    WATER_CLAIM,
    Script,
    start_date_answer,
    water_claim_saying_when,
    water_script,
)
from tests.support.paths import ROOT
from tests.support.report import known_store

# The report's one read (store/report_query.py) on each engine, figure for figure.
pytestmark = pytest.mark.usefixtures("engine")


def m(count: int, denominator: int) -> dict[str, Any]:
    figure = round(count / denominator, 6) if denominator else None
    return {"figure": figure, "count": count, "denominator": denominator}


def a(total: float, denominator: int) -> dict[str, Any]:
    return {"figure": round(total / denominator, 6), "count": total, "denominator": denominator}


def report_json(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["report", "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture
def known(sample_library: PolicyLibrary, tmp_path: Path) -> Store:
    return known_store(sample_library, tmp_path / "claims")


def test_overall_figures(known: Store) -> None:
    overall = report_json()["overall"]
    assert overall["claims"] == 13
    assert overall["outcomes"] == {
        "ACCEPTED": m(2, 13),
        "PREFERRED": m(1, 13),
        "ADJUDICATED": m(1, 13),
        "ADJUDICATION_REQUIRED": m(1, 13),
        "ESCALATED": m(8, 13),
    }
    # Both answers parsed in 11 (not R10, R13); they differ in R03-R09.
    assert overall["conflict"] == m(7, 11)
    # Not settled by a rule or the adjudicator: R04, R05, R06, R08, R09.
    assert overall["material_conflict"] == m(5, 11)
    assert overall["automatic"] == m(3, 13)
    assert overall["automatic_with_adjudicator"] == m(4, 13)
    assert overall["adjudicator"] == m(2, 13)
    assert overall["adjudicator_outcomes"] == {
        "chose_policy": m(1, 2),
        "chose_fraud": m(0, 2),
        "escalate": m(0, 2),
        "invalid": m(1, 2),
    }
    assert overall["escalated"] == m(8, 13)
    assert overall["escalation_reasons"] == {
        "adjudicator_invalid": m(1, 13),
        "low_confidence": m(1, 13),
        "needs_more_evidence": m(3, 13),
        "parse_error": m(1, 13),
        "policy_gate": m(1, 13),
        "policy_not_found": m(1, 13),
        "over_authority": m(1, 13),
    }
    # Twelve claims reached the agents; only R10's fraud answer failed to parse.
    assert overall["parse_errors"] == {
        "intake": m(0, 12),
        "policy": m(0, 12),
        "fraud": m(1, 12),
    }
    # 4 calls and 450 tokens in each of the 12, plus one adjudicator call of 50 in R07 and R09;
    # 2 seconds each, R13 none.
    assert overall["model_calls"] == a(50, 13)
    assert overall["tokens"] == a(5500, 13)
    assert overall["seconds"] == a(24, 13)


def test_by_loss_type(known: Store) -> None:
    rows = {r["loss_type"]: r["figures"] for r in report_json()["by_loss_type"]}
    assert list(rows) == ["water_damage", "theft", "unknown"]
    water, theft, unknown = rows["water_damage"], rows["theft"], rows["unknown"]
    assert water["claims"] == 9
    assert water["conflict"] == m(7, 8)
    assert water["material_conflict"] == m(5, 8)
    assert water["automatic"] == m(2, 9)
    assert water["adjudicator"] == m(2, 9)
    assert water["escalated"] == m(5, 9)
    assert water["parse_errors"]["fraud"] == m(1, 9)
    assert theft["claims"] == 3
    assert theft["conflict"] == m(0, 3)
    assert theft["automatic"] == m(1, 3)
    assert theft["escalated"] == m(2, 3)
    assert theft["escalation_reasons"] == {
        "low_confidence": m(1, 3),
        "policy_gate": m(1, 3),
        "over_authority": m(1, 3),
    }
    assert unknown["claims"] == 1
    assert unknown["conflict"] == m(0, 0)
    assert unknown["escalated"] == m(1, 1)
    assert unknown["parse_errors"]["intake"] == m(0, 0)


def test_by_field_points_at_the_open_facts(known: Store) -> None:
    fields = {r["field"]: r for r in report_json()["by_field"]}
    assert list(fields)[:2] == ["damage_start_date", "date_of_loss"]
    start = fields["damage_start_date"]
    # Conflicts among the 12 claims with parsed facts: R03-R09; agreements R01, R02, R11, R12.
    assert start["null_in_conflicts"] == m(2, 7)  # R04, R05
    assert start["disputed_in_conflicts"] == m(0, 7)
    assert start["relied_open_in_conflicts"] == m(2, 7)
    assert start["open_in_agreements"] == m(3, 4)  # the theft claims: R02, R11, R12
    assert start["asked"] == m(2, 7)  # escalated with facts: R04-R06, R09-R12
    assert start["figures"]["claims"] == 5
    assert start["figures"]["conflict"] == m(2, 5)
    assert start["figures"]["material_conflict"] == m(2, 5)
    loss_date = fields["date_of_loss"]
    assert loss_date["null_in_conflicts"] == m(0, 7)
    assert loss_date["disputed_in_conflicts"] == m(1, 7)  # R06: intake read 2025-10-01
    assert loss_date["relied_open_in_conflicts"] == m(1, 7)
    assert loss_date["open_in_agreements"] == m(0, 4)
    assert loss_date["asked"] == m(1, 7)
    assert loss_date["figures"]["claims"] == 1
    for name in ("loss_type", "cause", "amount_claimed"):
        assert fields[name]["null_in_conflicts"] == m(0, 7)
        assert fields[name]["disputed_in_conflicts"] == m(0, 7)
        assert fields[name]["figures"]["claims"] == 0


def test_by_clause(known: Store) -> None:
    rows = {(r["side"], r["clause"]): r for r in report_json()["by_clause"]}
    assert list(rows) == [
        ("policy", "4.2(b)"),
        ("policy", "4.4(a)"),
        ("fraud", "7.1"),
        ("fraud", "4.4(a)"),
        ("fraud", "4.2(b)"),
        ("fraud", "9.4"),
    ]
    # R10's citation was never re-read: the checks stopped at fraud's unreadable answer.
    assert rows[("policy", "4.2(b)")]["verified"] == m(8, 9)
    assert rows[("policy", "4.2(b)")]["figures"]["conflict"] == m(7, 8)
    assert rows[("policy", "4.4(a)")]["verified"] == m(3, 3)
    assert rows[("fraud", "7.1")]["verified"] == m(6, 6)
    seepage = rows[("fraud", "7.1")]["figures"]
    assert seepage["claims"] == 6
    assert seepage["conflict"] == m(6, 6)
    assert seepage["material_conflict"] == m(5, 6)  # all but R07, which was adjudicated
    assert seepage["escalated"] == m(4, 6)  # R08 is ADJUDICATION_REQUIRED
    assert rows[("fraud", "9.4")]["verified"] == m(0, 1)
    assert rows[("fraud", "9.4")]["figures"]["outcomes"]["PREFERRED"] == m(1, 1)


def test_reviews_and_calibration(known: Store) -> None:
    reviews = report_json()["reviews"]
    assert reviews["reviewed"] == m(7, 9)
    assert reviews["decisions"] == {"covered": 4, "not_covered": 2, "needs_more_evidence": 1}
    # Covered or not_covered with both answers parsed: R04, R05, R08, R11, R12.
    assert reviews["sided_with"] == {
        "both": m(1, 5),
        "policy": m(2, 5),
        "fraud": m(1, 5),
        "neither": m(1, 5),
    }
    policy, fraud = reviews["agents"]
    assert policy["agent"] == "policy"
    assert policy["agreed"] == m(4, 6)
    buckets = {(b["low"], b["high"]): b for b in policy["calibration"]}
    assert buckets[(0.6, 0.7)]["agreed"] == m(1, 1)  # R11
    assert buckets[(0.8, 0.9)]["agreed"] == m(2, 3)  # R04, R05, R08 at 0.82
    assert buckets[(0.8, 0.9)]["mean_confidence"] == 0.82
    assert buckets[(0.9, 1.0)]["agreed"] == m(1, 2)  # R10 at 0.9, R12 at 0.95
    assert buckets[(0.9, 1.0)]["mean_confidence"] == 0.925
    assert buckets[(0.0, 0.5)]["agreed"] == m(0, 0)
    assert fraud["agreed"] == m(2, 5)
    buckets = {(b["low"], b["high"]): b for b in fraud["calibration"]}
    assert buckets[(0.6, 0.7)]["agreed"] == m(1, 1)
    assert buckets[(0.7, 0.8)]["agreed"] == m(1, 3)
    assert buckets[(0.9, 1.0)]["agreed"] == m(0, 1)


def test_escalation_links_open_first(known: Store) -> None:
    links = report_json()["escalations"]
    assert [e["claim_id"] for e in links] == [
        "R09",
        "R13",
        "R04",
        "R05",
        "R06",
        "R08",
        "R10",
        "R11",
        "R12",
    ]
    assert links[0]["state"] == "open" and links[2]["review"] == "covered"
    assert all(isinstance(e["escalation_id"], int) for e in links)


def test_rows_from_objects_match_the_sql_pass(known: Store) -> None:
    """The one-pass SQL loader and the store's own objects give the same rows."""
    via_objects = []
    for decision in known.decisions():
        try:
            escalation: Escalation | None = known.escalation(decision.claim_id)
        except NotFound:
            escalation = None
        via_objects.append(
            row_from(
                decision,
                known.claim_record(decision.claim_id),
                known.claim_file(decision.claim_id),
                escalation,
            )
        )
    assert via_objects == load_rows(known)


def test_since_and_an_empty_store(known: Store) -> None:
    assert report_json("--since", "2999-01-01")["overall"]["claims"] == 0
    rows = load_rows(known)
    late = build_report(rows, since=date(2999, 1, 1), now=datetime(2030, 1, 1, tzinfo=UTC))
    assert late.overall.conflict.figure is None and late.escalations == []
    assert build_report(rows).overall.claims == 13
    result = CliRunner().invoke(main, ["report", "--since", "2999-01-01"])
    assert result.exit_code == 0 and "Nothing to report" in result.output


def test_terminal_tables(known: Store) -> None:
    result = CliRunner().invoke(main, ["report"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "13 claims reviewed: " in result.output
    assert "damage_start_date" in result.output and "needs_more_evidence" in result.output
    assert "45.5%" in result.output and "61.5%" in result.output  # material 5/11, escalated 8/13


def test_bad_since_is_refused() -> None:
    result = CliRunner().invoke(main, ["report", "--since", "last week"])
    assert result.exit_code == 2


# ---- the water example through the real crew ----------------------------------------------

RULING = {
    "choice": "policy",
    "reason": "A joint found leaking the next morning is a sudden discharge; 7.1 needs weeks.",
    "evidence": ["4.2(b)"],
}
SURE_COVERED = {**POLICY_COVERED, "confidence": 0.9}


def crew_decide(
    library: PolicyLibrary,
    store: Store,
    tmp_path: Path,
    claim_id: str,
    script: Script,
    saying_when: bool = False,
) -> None:
    """C-1042 under `claim_id` through the crew; `saying_when`: its description says when the
    leak began, so an intake that reads the start date can quote it."""
    path = water_claim_saying_when(tmp_path / "inbox", claim_id)
    if not saying_when:
        data = {**json.loads(WATER_CLAIM.read_text(encoding="utf-8")), "claim_id": claim_id}
        path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_claim(path)
    settings = build_context(
        library=library, llm_for=script, config_dir=ROOT / "config", store=store
    )
    record = review_claim(loaded, settings)
    assert record.status == "reviewed", record.error
    store.record(record, None, loaded)


def dispute_script() -> Script:
    return Script(
        intake=[final(KNOWN_START)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=[final(RULING)],
    )


def agree_script() -> Script:
    return Script(
        intake=[final(KNOWN_START)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(SURE_COVERED)],
        fraud=[lookup("HM-HOME-001", "4.2(b)"), final(SURE_COVERED)],
    )


def at(day: str) -> Any:
    moment = datetime.fromisoformat(day).replace(tzinfo=UTC)
    return lambda: moment


def test_water_example_without_the_start_date(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """C-1042 as the design tells it: intake never extracts when the damage started."""
    crew_decide(sample_library, Store(), tmp_path, "C-1042", water_script())
    data = report_json()
    overall = data["overall"]
    assert overall["outcomes"]["ESCALATED"] == m(1, 1)
    assert overall["escalation_reasons"] == {"needs_more_evidence": m(1, 1)}
    assert overall["conflict"] == m(1, 1)
    assert overall["material_conflict"] == m(1, 1)
    # Intake's facts, then its targeted question (answered null), policy twice, fraud once.
    assert overall["model_calls"] == a(5, 1)
    assert overall["evidence_requests"] == m(1, 1)
    assert overall["evidence_resolution"] == m(0, 1)
    start = data["by_field"][0]
    assert start["field"] == "damage_start_date"
    assert start["null_in_conflicts"] == m(1, 1)
    assert start["relied_open_in_conflicts"] == m(1, 1)
    assert start["asked"] == m(1, 1)
    assert all(f["open_in_conflicts"] == m(0, 1) for f in data["by_field"][1:])
    clauses = {(c["side"], c["clause"]): c["verified"] for c in data["by_clause"]}
    assert clauses == {("policy", "4.2(b)"): m(1, 1), ("fraud", "7.1"): m(1, 1)}


def test_a_guessed_start_date_counts_as_unverified_not_null(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """C-1042 never says when the damage began; intake says 2025-11-03 all the same."""
    guessed = {**KNOWN_START, "sources": INTAKE_WATER["sources"]}
    # Asked when the damage started, it keeps its guess and makes up the sentence: refused.
    again = start_date_answer("2025-11-03", STARTED, "description")
    script = Script(
        intake=[final(guessed), final(again)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[final(FRAUD_EXCLUDED)],
    )
    crew_decide(sample_library, Store(), tmp_path, "C-1042", script)
    data = report_json()
    assert data["overall"]["escalation_reasons"] == {
        "needs_more_evidence": m(1, 1),
        "fact_unverified": m(1, 1),
    }
    start = data["by_field"][0]
    assert start["field"] == "damage_start_date"
    assert start["null_in_conflicts"] == m(0, 1)
    assert start["unverified_in_conflicts"] == m(1, 1)
    assert start["disputed_in_conflicts"] == m(0, 1)
    assert start["open_in_conflicts"] == m(1, 1)
    assert start["asked"] == m(1, 1)
    assert all(f["unverified_in_conflicts"] == m(0, 1) for f in data["by_field"][1:])
    assert data["overall"]["evidence_resolution"] == m(0, 1)
    table = CliRunner().invoke(main, ["report"], env={"COLUMNS": "200"}).output
    assert "not verified" in table and "null, not verified or disputed" in table


def test_water_example_once_intake_reads_the_start_date(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """The seed's story: disagreement driven by damage_start_date, then intake improves."""
    before = Store(clock=at("2025-11-05T09:00:00"))
    crew_decide(sample_library, before, tmp_path, "C-1042", water_script())
    crew_decide(sample_library, before, tmp_path, "C-1042-b", water_script())
    after = Store(clock=at("2025-12-01T09:00:00"))
    crew_decide(sample_library, after, tmp_path, "C-1042-c", dispute_script(), saying_when=True)
    crew_decide(sample_library, after, tmp_path, "C-1042-d", agree_script(), saying_when=True)

    everything = report_json()
    assert everything["overall"]["conflict"] == m(3, 4)
    assert everything["overall"]["material_conflict"] == m(2, 4)
    start = everything["by_field"][0]
    assert start["field"] == "damage_start_date"
    assert start["null_in_conflicts"] == m(2, 3)

    improved = report_json("--since", "2025-12-01")
    overall = improved["overall"]
    assert overall["claims"] == 2
    assert overall["outcomes"]["ADJUDICATED"] == m(1, 2)
    assert overall["outcomes"]["ACCEPTED"] == m(1, 2)
    assert overall["conflict"] == m(1, 2)  # the dispute over what 4.2(b) and 7.1 mean
    assert overall["material_conflict"] == m(0, 2)
    assert overall["adjudicator_outcomes"]["chose_policy"] == m(1, 1)
    # Dispute: intake 1, policy 2, fraud 2, adjudicator 1; agreement: intake 1, policy 2, fraud 2.
    assert overall["model_calls"] == a(6 + 5, 2)
    assert all(f["open_in_conflicts"] == m(0, 1) for f in improved["by_field"])
    assert improved["by_field"][0]["field"] == "loss_type"  # nothing open: fact order
