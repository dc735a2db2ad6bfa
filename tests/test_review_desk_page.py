"""The review desk on the page (TestClient, both engines): My queue, and a denial proposed by
one reviewer, refused to them to confirm, and confirmed by another."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from claims_crew.desk import Assigner
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ReviewerSettings
from claims_crew.review.web import create_app
from claims_crew.store import Basis, Store
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")


def signed_in(store: Store, token: str) -> TestClient:
    c = TestClient(create_app(store, ["testserver"]), follow_redirects=False)
    csrf = c.get("/login").context["csrf"]  # type: ignore[attr-defined]
    assert c.post("/login", data={"token": token, "csrf": csrf}).status_code == 303
    return c


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None
    return found[1]


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch) -> Store:
    """The shipped config (every denial needs four eyes), and two home claims for ana and cy."""
    shutil.copytree(ROOT / "config", tmp_path / "config")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(tmp_path / "config"))
    return Store()


def test_my_queue_and_a_denial_proposed_then_confirmed_by_another(
    store: Store, tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    ana = store.add_reviewer("ana", ReviewerSettings(lines=["home"]))
    cy = store.add_reviewer("cy", ReviewerSettings(lines=["home"]))
    for claim_id in ("C-1", "C-2"):
        loaded = water_loaded(tmp_path / "inbox", claim_id)
        store.record(
            record_for(loaded, sample_library), None, loaded, Basis(line="home", assign=Assigner())
        )
    a, c = signed_in(store, ana), signed_in(store, cy)
    mine = a.get("/?mine=1").text
    assert "My queue" in mine and "C-1" in mine and "C-2" not in mine
    page = a.get("/escalations/C-1").text
    assert "Assigned to <strong>ana</strong>" in page
    form = {"decision": "not_covered", "reason": "Seepage.", "version": "1", "clause": "7.1(a)"}
    assert (
        a.post("/escalations/C-1/decide", data={**form, "csrf": csrf_of(page)}).status_code == 303
    )
    own = a.get("/escalations/C-1").text
    assert 'id="own-proposal"' in own and 'id="confirm-proposal"' not in own
    refused = a.post("/escalations/C-1/confirm", data={"reason": "", "csrf": csrf_of(own)})
    assert refused.status_code == 400 and "a different reviewer must confirm it" in refused.text
    theirs = c.get("/escalations/C-1").text
    assert 'id="confirm-proposal"' in theirs and "not_covered</strong> proposed by ana" in theirs
    done = c.post("/escalations/C-1/confirm", data={"reason": "", "csrf": csrf_of(theirs)})
    assert done.status_code == 303
    assert store.escalation("C-1").decided_by == "cy"
    assert store.verify_audit().ok


def test_a_lead_reassigns_on_the_page_and_a_reviewer_cannot(
    store: Store, tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    ana = store.add_reviewer("ana", ReviewerSettings(lines=["home"]))
    store.add_reviewer("bo", ReviewerSettings(lines=["auto"]))
    lee = store.add_reviewer("lee", ReviewerSettings(role="lead", lines=["marine"]))
    loaded = water_loaded(tmp_path / "inbox", "C-1")
    store.record(
        record_for(loaded, sample_library), None, loaded, Basis(line="home", assign=Assigner())
    )
    a, lead = signed_in(store, ana), signed_in(store, lee)
    own = a.get("/escalations/C-1").text
    assert 'id="reassign"' not in own  # the form is a lead's
    move = {"to": "bo", "reason": "Ana is away.", "csrf": csrf_of(own)}
    refused = a.post("/escalations/C-1/assign", data=move)
    assert refused.status_code == 400 and "ana is not a lead" in refused.text
    page = lead.get("/escalations/C-1").text
    assert 'id="reassign"' in page
    moved = lead.post("/escalations/C-1/assign", data={**move, "csrf": csrf_of(page)})
    assert moved.status_code == 303
    assert store.assignees(["C-1"]) == {"C-1": "bo"}
    assert "human:lee" in lead.get("/escalations/C-1").text  # in the page's audit trail
    assert store.verify_audit().ok
