"""The API on claims the store has decided or escalated, on both engines: a claim's view (its
decision, amount payable, audit hash, links), its letter, and documents that arrive later:
kept for an escalation's reviewer (and shown on its page), or an appeal run off the request."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from claims_crew.api.app import ApiSettings
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.web import create_app
from claims_crew.store import Store
from tests.support.store import accepted_answers, record_for, water_loaded
from tests.support.web import signed_in

pytestmark = pytest.mark.usefixtures("engine")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def recorded(store: Store, folder: Path, library: PolicyLibrary, accepted: bool) -> str:
    water = water_loaded(folder)
    answers = accepted_answers() if accepted else {}
    store.record(record_for(water, library, **answers), None, water)
    return water.claim.claim_id


def test_a_decided_claim_shows_its_decision_amount_audit_hash_and_letter(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    claim_id = recorded(store, tmp_path, sample_library, accepted=True)
    token = store.add_client("core", ["read"], "ops")
    api = TestClient(create_app(store, ["testserver"], api=ApiSettings()))
    view = api.get(f"/api/v1/claims/{claim_id}", headers=bearer(token)).json()
    assert view["state"] == "decided"
    decision = view["decision"]
    assert (decision["outcome"], decision["answer"], decision["decided_by"]) == (
        "ACCEPTED",
        "covered",
        "auto",
    )
    assert view["amount"]["claimed"] and view["amount"]["currency"] == "GBP"
    on_file = store.decision_on_file(claim_id)
    assert on_file is not None and view["audit"]["seq"] == on_file.entry_seq
    assert len(view["audit"]["hash"]) == 64
    assert view["links"]["letter"] == f"/api/v1/claims/{claim_id}/letter"
    letter = api.get(view["links"]["letter"] + "?format=md", headers=bearer(token))
    assert letter.status_code == 200 and letter.headers["content-type"].startswith("text/markdown")
    assert claim_id in letter.text
    issued = store.letters_issued(claim_id)
    assert [(i.format, i.sha256) for i in issued] == [("md", letter.headers["x-letter-sha256"])]
    pdf = api.get(view["links"]["letter"], headers=bearer(token))
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    # The calls about the claim did not move its decision in force.
    again = api.get(f"/api/v1/claims/{claim_id}", headers=bearer(token)).json()
    assert again["audit"] == view["audit"]


def test_a_document_for_an_escalated_claim_is_kept_for_its_reviewer(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    claim_id = recorded(store, tmp_path, sample_library, accepted=False)
    token = store.add_client("core", ["submit", "read"], "ops")
    api = TestClient(create_app(store, ["testserver"], api=ApiSettings()))
    view = api.get(f"/api/v1/claims/{claim_id}", headers=bearer(token)).json()
    assert view["state"] == "escalated" and view["links"]["letter"] is None
    note = b"The damage started on the morning of 2 November; the plumber confirms it."
    sent = api.post(
        f"/api/v1/claims/{claim_id}/documents",
        files=[("document", ("answer.txt", note))],
        headers=bearer(token),
    )
    assert sent.status_code == 202, sent.text
    assert sent.json()["kind"] == "later_document"
    kept = store.later_documents(claim_id)
    assert [(d.name, d.client, d.text.strip()) for d in kept] == [
        ("answer.txt", "core", note.decode())
    ]
    shown = api.get(f"/api/v1/claims/{claim_id}", headers=bearer(token)).json()
    assert [d["name"] for d in shown["later_documents"]] == ["answer.txt"]
    page = signed_in(store).get(f"/escalations/{claim_id}")
    assert "Documents received later" in page.text and "plumber confirms" in page.text


def test_evidence_for_a_decided_claim_starts_an_appeal_off_the_request(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    claim_id = recorded(store, tmp_path, sample_library, accepted=True)
    token = store.add_client("core", ["submit", "read"], "ops")
    release = threading.Event()
    seen: list[tuple[str, list[bytes], str]] = []

    def appeal(claim: str, files: list[Path], reason: str) -> str | None:
        seen.append((claim, [f.read_bytes() for f in files], reason))
        release.wait(30)
        return None

    api = TestClient(create_app(store, ["testserver"], api=ApiSettings(appeal=appeal)))
    url = f"/api/v1/claims/{claim_id}/documents"
    evidence = [("document", ("invoice.txt", b"Invoice: 3,850 GBP"))]
    no_reason = api.post(url, files=evidence, headers=bearer(token))
    assert no_reason.status_code == 422 and no_reason.json()["code"] == "invalid"
    started = api.post(url, files=evidence, data={"reason": "new invoice"}, headers=bearer(token))
    assert started.status_code == 202, started.text
    assert started.json()["kind"] == "appeal"
    view = api.get(f"/api/v1/claims/{claim_id}", headers=bearer(token)).json()
    assert view["state"] == "under_review"
    again = api.post(url, files=evidence, data={"reason": "again"}, headers=bearer(token))
    assert again.status_code == 409 and again.json()["code"] == "wrong_state"
    release.set()
    deadline = time.monotonic() + 30
    while api.get(f"/api/v1/claims/{claim_id}", headers=bearer(token)).json()["state"] != "decided":
        assert time.monotonic() < deadline, "the appeal never finished"
        time.sleep(0.05)
    assert seen == [(claim_id, [b"Invoice: 3,850 GBP"], "new invoice")]
