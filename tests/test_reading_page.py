"""The page a lead confirms an endorsement's reading on (review/routes_readings.py), through
TestClient on both stores: who may look and who may confirm, the CSRF token, a reading that
changed after the page showed it, and an endorsement that is not in policies/index.yaml. Each
refusal leaves policies/confirmations.yaml and the audit trail as they were. And the layout the
page shows (policy/reading_review.py): a change the reader missed is text no change covers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from claims_crew.policy.confirmations import load_confirmations
from claims_crew.records import ReviewerSettings
from claims_crew.review.web import create_app
from claims_crew.store import Store
from tests.support.readings import correct_hot_tubs, unconfirmed_policies


def _signed_in(store: Store, token: str) -> TestClient:
    c = TestClient(create_app(store, ["testserver"]), follow_redirects=False)
    csrf = c.get("/login").context["csrf"]  # type: ignore[attr-defined]
    assert c.post("/login", data={"token": token, "csrf": csrf}).status_code == 303
    return c


def _form(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]+)"', html)
    assert found is not None, name
    return found[1]


def _confirmed_entries(store: Store) -> list[tuple[str | None, str]]:
    return [
        (e.endorsement, e.actor) for e in store.audit_entries("") if e.kind == "reading_confirmed"
    ]


@pytest.mark.slow  # reads the home form's PDF where the run's cache does not hold it yet
@pytest.mark.usefixtures("engine")
def test_only_a_lead_confirms_and_only_the_reading_the_page_showed(
    tmp_path: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = unconfirmed_policies(tmp_path, session_cache, monkeypatch)
    store = Store()
    lead = _signed_in(store, store.add_reviewer("lee", ReviewerSettings(role="lead")))
    reviewer = _signed_in(store, store.add_reviewer("dana"))

    nobody = TestClient(create_app(store, ["testserver"]), follow_redirects=False)
    assert nobody.get("/endorsements/HM-E-09").headers["location"] == "/login"
    assert nobody.post("/endorsements/HM-E-09/confirm", data={}).status_code == 401

    # A reviewer who is no lead sees the reading, is offered no form, and is refused.
    seen = reviewer.get("/endorsements/HM-E-09")
    assert seen.status_code == 200 and "Only a lead may confirm" in seen.text
    assert 'id="confirm-reading"' not in seen.text
    digest = _form(lead.get("/endorsements/HM-E-09").text, "digest")
    refused = reviewer.post(
        "/endorsements/HM-E-09/confirm", data={"csrf": _form(seen.text, "csrf"), "digest": digest}
    )
    assert refused.status_code == 403
    assert "dana is not a lead; only a lead may confirm" in refused.text

    # A lead: without the session's CSRF token, refused.
    page = lead.get("/endorsements/HM-E-09").text
    csrf = _form(page, "csrf")
    wrong = lead.post("/endorsements/HM-E-09/confirm", data={"csrf": "x", "digest": digest})
    assert wrong.status_code == 403

    # The reading changes after the page showed it (a correction): the old digest is refused.
    original = correct_hot_tubs(root, "{change: 2, drop: true, why: checked against the PDF}")
    stale = lead.post("/endorsements/HM-E-09/confirm", data={"csrf": csrf, "digest": digest})
    assert stale.status_code == 409
    assert "the reading of HM-E-09 changed since the page was shown" in stale.text
    assert _form(stale.text, "digest") != digest  # the page shows the reading as it is now
    assert load_confirmations(root) == {} and _confirmed_entries(store) == []

    assert lead.get("/endorsements/NO-SUCH").status_code == 404
    unknown = lead.post("/endorsements/NO-SUCH/confirm", data={"csrf": csrf, "digest": digest})
    assert unknown.status_code == 404

    # As it reads now, confirmed: the page says by whom, and so do the file and the trail.
    (root / "index.yaml").write_text(original, encoding="utf-8")
    done = lead.post("/endorsements/HM-E-09/confirm", data={"csrf": csrf, "digest": digest})
    assert (done.status_code, done.headers["location"]) == (303, "/endorsements/HM-E-09")
    kept = load_confirmations(root)
    assert list(kept) == ["HM-E-09"] and (kept["HM-E-09"].digest, kept["HM-E-09"].by) == (
        digest,
        "lee",
    )
    assert _confirmed_entries(store) == [("HM-E-09", "human:lee")]
    assert "Confirmed by <strong>lee</strong>" in lead.get("/endorsements/HM-E-09").text
    listing = reviewer.get("/endorsements").text
    assert re.search(r"HM-E-07</a>.*?unconfirmed", listing, re.S)
    assert re.search(r"HM-E-09</a>.*?confirmed \(lee", listing, re.S)


def test_a_change_the_reader_missed_shows_as_text_no_change_covers(
    tmp_path: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HM-E-09 read as if its first change (exclusion 7.12 added) had been missed: dropped by a
    correction, its words and sentence are listed as text no change covers."""
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.policy.reading_review import review_reading

    root = unconfirmed_policies(tmp_path, session_cache, monkeypatch)
    whole = review_reading(PolicyLibrary(root=root, cache_dir=session_cache), "HM-E-09")
    assert not any("7.12" in u.text for u in whole.uncovered)
    correct_hot_tubs(root, "{change: 1, drop: true, why: as if never read}")
    missed = review_reading(PolicyLibrary(root=root, cache_dir=session_cache), "HM-E-09")
    assert [c.target for c in missed.changes] == ["8.3"] and missed.corrected
    assert missed.digest != whole.digest
    shown = " ".join(u.text for u in missed.uncovered)
    assert "The following exclusion is added to section 7: 7.12 Hot tubs and spa pools" in shown
    assert "Clause 8.3 is replaced" not in shown
