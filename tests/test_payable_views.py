"""The amount payable and the external codes where a person reads them: `review show`, its
`--json`, and the review page, for a claim the authority limit sent to a person."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.deciding.payable import payable_on_decision
from claims_crew.desk import DeskRules
from claims_crew.desk.rules import FourEyes
from claims_crew.errors import OutsideAuthority
from claims_crew.letters.content import letter_for
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ReviewerSettings
from claims_crew.review.web import create_app
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Review, Store
from tests.support.amounts import config_with_limit, theft_script
from tests.support.crew import settings
from tests.support.paths import ROOT
from tests.support.reviewers import decide
from tests.support.store import record_for, water_loaded


@pytest.fixture
def store(sample_library: PolicyLibrary, tmp_path: Path) -> Store:
    """C-1044 through the crew with a GBP authority limit of 2000: £2,350 payable, escalated."""
    loaded = load_claim(ROOT / "claims" / "inbox" / "C-1044.yaml")
    config = config_with_limit(tmp_path, "2000")
    record = review_claim(loaded, settings(sample_library, theft_script(), tmp_path, config))
    store = Store()
    store.record(record, None, loaded)
    return store


def test_review_show_json_carries_the_amount_and_the_external_codes(store: Store) -> None:
    result = CliRunner().invoke(main, ["review", "show", "C-1044", "--json"])
    assert result.exit_code == 0, result.output
    detail = json.loads(result.stdout)
    assert detail["reason_codes"] == ["over_authority"]
    assert detail["external"] == {"code": "R50", "reason_codes": {"over_authority": "R50"}}
    payable = detail["payable"]
    assert (payable["amount"], payable["currency"], payable["held"]) == ("2350", "GBP", True)
    assert [(s["kind"], s["clause_id"], s["after"]) for s in payable["steps"]] == [
        ("claimed", None, "2600"),
        ("limit", "9.1", "2600"),
        ("deductible", "5.4", "2350"),
    ]


def test_review_show_prints_the_amount_and_its_steps(store: Store) -> None:
    result = CliRunner().invoke(main, ["review", "show", "C-1044"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Payable if covered: 2350 GBP" in result.output
    assert "External code: R50  [over_authority (R50)]" in result.output
    assert "less the deductible of 250 for the whole policy" in result.output


def test_the_review_page_shows_the_amount_and_the_steps(store: Store) -> None:
    token = store.add_reviewer("ana")
    client = TestClient(create_app(store, ["testserver"]), follow_redirects=False)
    csrf = client.get("/login").context["csrf"]  # type: ignore[attr-defined]
    client.post("/login", data={"token": token, "csrf": csrf})
    html = client.get("/escalations/C-1044").text
    assert 'id="payable"' in html and "Payable if covered: 2350 GBP" in html
    assert '<tr class="step-deductible"><td>deductible</td><td>5.4</td>' in html
    assert 'id="external-codes"' in html and "R50" in html


def test_the_report_names_the_team_code_beside_each_reason(store: Store) -> None:
    result = CliRunner().invoke(main, ["report", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["external_codes"] == {"over_authority": "R50"}
    [escalation] = report["escalations"]
    assert (escalation["reason_codes"], escalation["external_code"]) == (["over_authority"], "R50")
    shown = CliRunner().invoke(main, ["report"], env={"COLUMNS": "200"})
    assert "over_authority (R50)" in shown.output


def test_a_persons_covered_decision_keeps_the_amount(store: Store) -> None:
    ana = store.add_reviewer("ana")
    result = decide(
        ana, "C-1044", "covered", "Within my authority.", "--clause", "4.4(a)", "--reviewer", "ana",
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["review"]["payable"]["amount"] == "2350"
    [decision] = store.decisions()
    assert decision.review is not None and decision.review.payable is not None
    assert decision.review.payable.amount == Decimal("2350")
    # What a letter is written from reads the same review, its amount as one too.
    on_file = store.decision_on_file("C-1044")
    assert on_file is not None and on_file.review is not None
    assert on_file.review.payable == decision.review.payable
    shown = json.loads(CliRunner().invoke(main, ["review", "show", "C-1044", "--json"]).stdout)
    assert (shown["payable"]["amount"], shown["payable"]["held"]) == ("2350", False)


@pytest.mark.parametrize(
    ("decision", "amount"), [("covered", Decimal("3700")), ("not_covered", None)]
)
def test_a_person_deciding_a_conflict_gets_the_amount_from_the_cited_grant(
    sample_library: PolicyLibrary, tmp_path: Path, decision: str, amount: Decimal | None
) -> None:
    """The water claim (£4,200) escalated on an open fact: no amount was computed by the rules;
    a person deciding covered is paid on the policy side's verified 4.2(b), less £500."""
    water = water_loaded(tmp_path / "inbox")
    store = Store()
    store.record(record_for(water, sample_library), None, water)
    store.add_reviewer("ana")
    payable = payable_on_decision(store, "C-1042", decision, sample_library)
    review = store.decide(
        "C-1042", decision, "The pipe burst.", "ana", payable=payable, rules=DeskRules()
    )
    [kept] = store.reviews("C-1042")
    assert kept == review
    if amount is None:
        assert kept.payable is None
    else:
        assert kept.payable is not None and kept.payable.amount == amount
        assert kept.payable.deciding_clause == "4.2(b)"
    # The letter states the person's amount, not the escalated resolution's (which has none).
    on_file = store.decision_on_file("C-1042")
    assert on_file is not None and on_file.resolution.payable is None
    stated = letter_for(on_file).amount
    assert stated.amount == (None if amount is None else str(amount))
    assert len(stated.steps) == (0 if amount is None else len(review.payable.steps))


def test_authority_and_four_eyes_judge_the_amount_payable_not_the_amount_claimed(
    store: Store, sample_library: PolicyLibrary
) -> None:
    # C-1044 claims 2600; the schedule's deductible leaves 2350 payable. bo approves up to 2400.
    store.add_reviewer("bo", ReviewerSettings(max_amount=Decimal("2400")))
    payable = payable_on_decision(store, "C-1044", "covered", sample_library)
    assert payable is not None and payable.amount == Decimal("2350")
    # With no amount payable to go by, the amount claimed is what is at stake: beyond bo.
    with pytest.raises(OutsideAuthority, match="up to 2400; this claim is for 2600"):
        store.decide("C-1044", "covered", "Forced entry.", "bo", rules=DeskRules())
    # A second reviewer for payments over 2500: the amount payable is under it, so bo decides.
    over_2500 = DeskRules(four_eyes=FourEyes(covered_over=Decimal("2500")))
    review = store.decide(
        "C-1044", "covered", "Forced entry, 4.4(a).", "bo", rules=over_2500, payable=payable
    )
    assert isinstance(review, Review) and review.payable == payable
    assert store.escalation("C-1044").state == "decided"
    assert store.verify_audit().ok
