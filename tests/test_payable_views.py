"""The amount payable and the external codes where a person reads them: `review show`, its
`--json`, and the review page, for a claim the authority limit sent to a person."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.web import create_app
from claims_crew.run.review import review_claim
from claims_crew.store import Store
from tests.support.amounts import config_with_limit, theft_script
from tests.support.crew import settings
from tests.support.paths import ROOT


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
