"""Where a claim stands, one phrase (store/claim_states.where_it_stands) on every view besides
`claim show` (tests/test_claim_show.py): the review page's headline, the report's header counts,
`review list` and the API's claim list, on both engines. A person's decision leads; the rules'
outcome is history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from claims_crew.api.app import ApiSettings
from claims_crew.cli import main
from claims_crew.desk import load_desk
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.web import create_app
from claims_crew.store import Store
from tests.support.store import accepted_answers, record_for, water_loaded
from tests.support.web import signed_in

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """C-1047 accepted by the rules; C-1042 and C-1043 escalated, C-1042 then decided by ana."""
    store = Store()
    auto = water_loaded(tmp_path / "inbox", "C-1047")
    store.record(record_for(auto, sample_library, **accepted_answers()), None, auto)
    for claim_id in ("C-1042", "C-1043"):
        escalated = water_loaded(tmp_path / "inbox", claim_id)
        store.record(record_for(escalated, sample_library), None, escalated)
    store.add_reviewer("ana")
    store.decide("C-1042", "covered", "The plumber dates the leak.", "ana", rules=load_desk())
    return store


def test_the_page_of_a_claim_a_person_decided_leads_with_them(store: Store) -> None:
    on_file = store.decision_on_file("C-1042")
    assert on_file is not None and on_file.review is not None
    page = signed_in(store, "bo").get("/escalations/C-1042")
    assert page.status_code == 200
    html = page.text
    headline = f'id="standing">decided by a person (ana, {on_file.review.decided_at})</span></h1>'
    assert headline in html
    # The person's answer comes before the automatic outcome, which reads as history.
    said = html.index('id="decided-head"><strong>covered</strong>, decided by ana at ')
    history = html.index("Before them the rules said: ESCALATED by rule ")
    assert said < history
    assert "ESCALATED" not in html[: html.index('id="description"')]


def test_the_page_of_an_open_escalation_says_escalated(store: Store) -> None:
    html = signed_in(store, "bo").get("/escalations/C-1043").text
    assert 'id="standing">escalated</span></h1>' in html
    assert 'id="decided-head"' not in html and "Before them the rules said" not in html


def test_the_reports_header_counts_claims_decided_and_open_escalations(store: Store) -> None:
    shown = CliRunner().invoke(main, ["report"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    line = "3 claims reviewed: 2 decided (by the rules or a person), 1 escalated (all decisions)"
    assert line in shown.output.splitlines()
    as_json = json.loads(CliRunner().invoke(main, ["report", "--json"]).stdout)
    assert (as_json["decided"], as_json["escalated"]) == (2, 1)


def test_the_apis_claim_list_says_where_each_stands_as_the_claims_view_does(store: Store) -> None:
    token = store.add_client("core", ["read"], "ops")
    api = TestClient(create_app(store, ["testserver"], api=ApiSettings()))
    auth = {"Authorization": f"Bearer {token}"}
    listed = api.get("/api/v1/claims", headers=auth)
    assert listed.status_code == 200, listed.text
    stands = {c["claim_id"]: c["standing"] for c in listed.json()["claims"]}
    on_file = store.decision_on_file("C-1042")
    assert on_file is not None and on_file.review is not None
    assert stands == {
        "C-1047": "decided by the rules",
        "C-1042": f"decided by a person (ana, {on_file.review.decided_at})",
        "C-1043": "escalated",
    }
    for claim_id, said in stands.items():  # the same phrase as the single claim's view
        assert api.get(f"/api/v1/claims/{claim_id}", headers=auth).json()["standing"] == said


def test_review_list_says_where_each_open_escalation_stands(store: Store) -> None:
    shown = CliRunner().invoke(main, ["review", "list"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert any(line.startswith("C-1043: escalated; ") for line in shown.stdout.splitlines())
    listed = json.loads(CliRunner().invoke(main, ["review", "list", "--json"]).stdout)
    assert [(e["claim_id"], e["standing"]) for e in listed["escalations"]] == [
        ("C-1043", "escalated")
    ]
