"""The review page over TestClient: sign-in, CSRF, Host checks, conflicts, escaping."""

from __future__ import annotations

import http.client
import re
import shutil
from pathlib import Path

import pytest

from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.views import MAX_PAGE
from claims_crew.review.web import SECURITY_HEADERS, SESSION_COOKIE, default_hosts
from claims_crew.store import Store
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded
from tests.support.web import client, review_page, signed_in

SCRIPT = "<script>alert('pwned')</script>"

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    store = Store()
    water = water_loaded(tmp_path / "inbox", description=f"Water through the ceiling. {SCRIPT}")
    store.record(record_for(water, sample_library), None, water)
    return store


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None
    return found[1]


def test_pages_need_a_session(store: Store) -> None:
    c = client(store)
    for path in ("/", "/escalations/C-1042"):
        response = c.get(path)
        assert response.status_code == 303 and response.headers["location"] == "/login"
    response = c.post(
        "/escalations/C-1042/decide", data={"decision": "covered", "reason": "x", "csrf": "x"}
    )
    assert response.status_code == 401
    c.cookies.set(SESSION_COOKIE, "made-up")
    assert c.get("/").status_code == 303


def test_a_wrong_token_is_refused(store: Store) -> None:
    store.add_reviewer("ana")
    c = client(store)
    csrf = c.get("/login").context["csrf"]  # type: ignore[attr-defined]
    response = c.post("/login", data={"token": "guess", "csrf": csrf})
    assert response.status_code == 401 and SESSION_COOKIE not in response.cookies
    assert "not valid" in response.text


def test_sign_in_needs_the_forms_csrf_token(store: Store) -> None:
    token = store.add_reviewer("ana")
    c = client(store)
    c.get("/login")
    assert c.post("/login", data={"token": token}).status_code == 403
    assert c.post("/login", data={"token": token, "csrf": "forged"}).status_code == 403


def test_the_queue_lists_open_escalations(store: Store) -> None:
    c = signed_in(store)
    response = c.get("/")
    assert response.status_code == 200
    assert response.template.name == "queue.html"  # type: ignore[attr-defined]
    listing = response.context["listing"]  # type: ignore[attr-defined]
    assert [e["claim_id"] for e in listing["escalations"]] == ["C-1042"]
    assert 'href="/escalations/C-1042"' in response.text


def test_the_escalation_page_shows_both_sides_and_the_clause_texts(store: Store) -> None:
    c = signed_in(store)
    response = c.get("/escalations/C-1042")
    assert response.status_code == 200
    assert response.template.name == "escalation.html"  # type: ignore[attr-defined]
    html = response.text
    assert 'id="side-policy"' in html and 'id="side-fraud"' in html
    assert "sudden and accidental discharge of water" in html  # 4.2(b), re-read
    assert "continuous or repeated seepage" in html  # 7.1, re-read
    assert "When did the damage start?" in html
    assert "tool-sourced" in html and "from memory" in html


def test_the_page_marks_each_fact_against_the_claim(store: Store) -> None:
    """The fixture's description is not C-1042's own: intake's quotes for loss_type and cause
    are not in it, the claim file's fields still match, and the start date is unknown."""
    c = signed_in(store)
    html = c.get("/escalations/C-1042").text
    found = re.findall(r'<li class="fact fact-(\w+)" id="fact-(\w+)">', html)
    facts = {name: status for status, name in found}
    assert facts == {
        "loss_type": "unverified",
        "cause": "unverified",
        "date_of_loss": "verified",
        "damage_start_date": "unknown",
        "amount_claimed": "verified",
    }
    assert "intake said water_damage; the quote is not in the description" in html
    assert "(claim file: date_of_loss)" in html


def test_a_script_in_a_claim_is_rendered_inert(store: Store) -> None:
    c = signed_in(store)
    html = c.get("/escalations/C-1042").text
    assert SCRIPT not in html and "<script" not in html
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in html
    csp = c.get("/escalations/C-1042").headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp


def test_a_decision_needs_the_csrf_token(store: Store) -> None:
    c = signed_in(store)
    c.get("/escalations/C-1042")
    data = {"decision": "covered", "reason": "dated", "version": "1"}
    assert c.post("/escalations/C-1042/decide", data=data).status_code == 403
    assert c.post("/escalations/C-1042/decide", data={**data, "csrf": "x"}).status_code == 403
    assert store.reviews() == []


def test_a_foreign_host_is_refused(store: Store) -> None:
    c = signed_in(store)
    for path in ("/", "/login", "/escalations/C-1042"):
        refused = c.get(path, headers={"Host": "evil.example"})
        assert refused.status_code == 403
        # The refusal carries the same security headers as every other response.
        assert {k: refused.headers.get(k) for k in SECURITY_HEADERS} == SECURITY_HEADERS
    assert c.get("/", headers={"Host": "testserver"}).status_code == 200
    assert "127.0.0.1:8000" in default_hosts("127.0.0.1", 8000)
    assert "evil.example" not in default_hosts("127.0.0.1", 8000)


def test_two_reviewers_one_decision(store: Store) -> None:
    ana, bo = signed_in(store, "ana"), signed_in(store, "bo")
    ana_page, bo_page = ana.get("/escalations/C-1042").text, bo.get("/escalations/C-1042").text
    form = {"decision": "covered", "reason": "Dated by the plumber.", "version": "1"}
    form["clause"] = "4.2(b)"  # the clause the re-read verified
    won = ana.post("/escalations/C-1042/decide", data={**form, "csrf": csrf_of(ana_page)})
    assert won.status_code == 303
    lost = bo.post(
        "/escalations/C-1042/decide",
        data={**form, "decision": "not_covered", "csrf": csrf_of(bo_page)},
    )
    assert lost.status_code == 409
    assert "Already decided (covered) by ana" in lost.text
    [review] = store.reviews()
    assert review.reviewer == "ana"
    page = ana.get("/escalations/C-1042")
    assert 'id="decided"' in page.text and "human:ana" in page.text
    assert "Dated by the plumber." in page.text


def test_an_empty_reason_is_refused(store: Store) -> None:
    c = signed_in(store)
    html = c.get("/escalations/C-1042").text
    data = {"decision": "covered", "reason": " ", "version": "1", "csrf": csrf_of(html)}
    response = c.post("/escalations/C-1042/decide", data=data)
    assert response.status_code == 400 and "a reason is required" in response.text


def test_a_broken_desk_yaml_decides_nothing_and_says_why(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    c = signed_in(store)
    html = c.get("/escalations/C-1042").text
    (config / "desk.yaml").write_text("four_eyes: [not, a, mapping\n", encoding="utf-8")
    before = store.decisions()
    data = {"decision": "covered", "reason": "Dated.", "version": "1", "csrf": csrf_of(html)}

    response = c.post("/escalations/C-1042/decide", data=data)

    assert response.status_code == 500
    assert "Nothing was decided: the desk&#39;s rules could not be read." in response.text
    assert "desk.yaml" in response.text
    assert store.reviews() == [] and store.decisions() == before
    assert [e.claim_id for e in store.open_escalations()] == ["C-1042"]


def test_sign_out_ends_the_session(store: Store) -> None:
    c = signed_in(store)
    html = c.get("/").text
    assert c.post("/logout", data={"csrf": "x"}).status_code == 403
    assert c.post("/logout", data={"csrf": csrf_of(html)}).status_code == 303
    assert c.get("/").status_code == 303


def test_a_page_number_out_of_range_is_a_400_and_the_connection_goes_on(store: Store) -> None:
    """Served for real: /?page=2**63-1 used to overflow the row offset, answer 500 without the
    security headers, and drop the connection under the next request."""
    store.add_reviewer("ana")
    cookie = f"{SESSION_COOKIE}={store.open_session('ana')}"
    with review_page(store) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

        def get(path: str) -> tuple[int, dict[str, str], str]:
            connection.request("GET", path, headers={"Cookie": cookie})
            response = connection.getresponse()
            headers = {name.lower(): value for name, value in response.getheaders()}
            return response.status, headers, response.read().decode("utf-8")

        status, _, body = get("/?page=1")
        assert status == 200 and "C-1042" in body
        assert connection.sock is not None
        local = connection.sock.getsockname()
        for page in ("9223372036854775807", str(MAX_PAGE + 1), "0", "-3", "two"):
            status, headers, body = get(f"/?page={page}")
            assert status == 400, (page, body)
            assert body.startswith("Bad request: page: ")
            assert page not in body  # what was sent is not echoed
            for name, value in SECURITY_HEADERS.items():
                assert headers[name.lower()] == value
            assert headers.get("connection") != "close"
            status, _, body = get("/?page=1")  # on the same connection, still open
            assert status == 200 and "C-1042" in body
            assert connection.sock is not None and connection.sock.getsockname() == local
        status, _, body = get(f"/?page={MAX_PAGE}")  # the last page answered: empty
        assert status == 200 and "C-1042" not in body
        connection.close()


def test_a_version_past_any_escalation_s_is_a_400(store: Store) -> None:
    c = signed_in(store)
    csrf = csrf_of(c.get("/escalations/C-1042").text)
    data = {"decision": "covered", "reason": "dated", "csrf": csrf}
    response = c.post("/escalations/C-1042/decide", data={**data, "version": str(2**63)})
    assert response.status_code == 400 and response.text.startswith("Bad request: version: ")
    assert response.headers["x-frame-options"] == "DENY"
    assert store.reviews() == []


def test_an_error_in_a_page_is_a_500_with_the_security_headers(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = signed_in(store)

    def broken() -> int:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(store, "open_count", broken)
    response = c.get("/")
    assert response.status_code == 500 and response.text == "Internal error"
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
