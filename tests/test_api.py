"""The HTTP API under /api/v1 (api/), on the review app, over the real store on both engines:
every refusal is a problem (RFC 9457) and keeps nothing; a submit is ingest's, with its codes;
a retry with the same Idempotency-Key gets the first answer; the OpenAPI document lists every
route with its answers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from claims_crew.api.app import ApiSettings
from claims_crew.api.body_limit import BodyCaps
from claims_crew.settings import home
from claims_crew.store import Store
from claims_crew.store import tables as t
from tests.support.paths import ROOT
from tests.support.web import review_page

pytestmark = pytest.mark.usefixtures("engine")

INBOX = ROOT / "claims" / "inbox"
PROBLEM = "application/problem+json"


@pytest.fixture
def store() -> Iterator[Store]:
    opened = Store()
    yield opened
    opened.close()


@pytest.fixture
def api(store: Store) -> TestClient:
    from claims_crew.review.web import create_app

    return TestClient(create_app(store, ["testserver"], api=ApiSettings()))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def files_of(claim: Path, *attachments: Path, claim_bytes: bytes | None = None) -> list[object]:
    parts: list[object] = [("claim", (claim.name, claim_bytes or claim.read_bytes()))]
    parts += [("attachments", (a.name, a.read_bytes())) for a in attachments]
    return parts


def kept(store: Store) -> tuple[int, int, list[Path]]:
    """Claim file rows, work items, and files under CLAIMS_CREW_HOME/api."""
    with store.read() as conn:
        files = conn.execute(select(func.count()).select_from(t.claim_files)).scalar_one()
        items = conn.execute(select(func.count()).select_from(t.work_items)).scalar_one()
    folder = home() / "api"
    return files, items, sorted(p for p in folder.rglob("*") if p.is_file())


def problem(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["status"] == status and body["code"] == code
    assert body["type"] == f"urn:claims-crew:problem:{code}"
    assert body["title"] and body["detail"] and body["instance"].startswith("/api/v1")
    assert isinstance(body, dict)
    return body


def test_no_token_or_an_unknown_one_is_401_and_keeps_nothing(store: Store, api: TestClient) -> None:
    sent = files_of(INBOX / "C-1043.json", INBOX / "C-1043-plumber.txt")
    refused = api.post("/api/v1/claims", files=sent)
    problem(refused, 401, "unauthorized")
    assert refused.headers["www-authenticate"].startswith("Bearer")
    wrong = api.post("/api/v1/claims", files=sent, headers=bearer("cc_not-a-token"))
    problem(wrong, 401, "unauthorized")
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
    problem(api.get("/api/v1/claims/C-1043"), 401, "unauthorized")
    assert kept(store) == (0, 0, [])


def test_a_token_without_the_scope_is_403_keeps_nothing_and_is_recorded(
    store: Store, api: TestClient
) -> None:
    reader = store.add_client("reader", ["read"], "ops")
    sent = files_of(INBOX / "C-1043.json", INBOX / "C-1043-plumber.txt")
    body = problem(api.post("/api/v1/claims", files=sent, headers=bearer(reader)), 403, "forbidden")
    assert "submit" in str(body["detail"])
    assert kept(store) == (0, 0, [])
    submitter = store.add_client("core", ["submit"], "ops")
    problem(api.get("/api/v1/claims", headers=bearer(submitter)), 403, "forbidden")
    with store.read() as conn:
        calls = conn.execute(select(t.audit_log.c.body).order_by(t.audit_log.c.seq)).scalars()
        entries = [json.loads(b) for b in calls]
    assert [(e["kind"], e["client"], e["call"]) for e in entries] == [
        ("api_call", "reader", "POST /api/v1/claims"),
        ("api_call", "core", "GET /api/v1/claims"),
    ]
    assert store.verify_audit().ok


def test_a_malformed_claim_and_one_missing_fields_get_ingests_codes_and_keep_nothing(
    store: Store, api: TestClient
) -> None:
    token = store.add_client("core", ["submit", "read"], "ops")
    malformed = api.post(
        "/api/v1/claims",
        files=[("claim", ("C-9.json", b'{"claim_id": "C-9", '))],
        headers=bearer(token),
    )
    body = problem(malformed, 422, "malformed")
    assert str(body["detail"]).startswith("C-9.json: not valid JSON")
    missing = json.loads((INBOX / "C-1043.json").read_bytes())
    del missing["amount"], missing["claimant"]
    refused = api.post(
        "/api/v1/claims",
        files=files_of(
            INBOX / "C-1043.json",
            INBOX / "C-1043-plumber.txt",
            claim_bytes=json.dumps(missing).encode(),
        ),
        headers=bearer(token),
    )
    detail = str(problem(refused, 422, "invalid")["detail"])
    assert "amount" in detail and "claimant" in detail and str(home()) not in detail
    no_claim = api.post(
        "/api/v1/claims", files=[("attachments", ("a.txt", b"x"))], headers=bearer(token)
    )
    problem(no_claim, 422, "invalid")
    outside = api.post(
        "/api/v1/claims",
        files=[
            ("claim", ("C-1043.json", (INBOX / "C-1043.json").read_bytes())),
            ("attachments", ("../C-1043-plumber.txt", b"plumber")),
        ],
        headers=bearer(token),
    )
    problem(outside, 422, "invalid")
    assert kept(store) == (0, 0, [])


def test_an_unknown_claim_route_or_method_is_a_problem(store: Store, api: TestClient) -> None:
    token = store.add_client("core", ["submit", "read"], "ops")
    problem(api.get("/api/v1/claims/C-404", headers=bearer(token)), 404, "not_found")
    problem(api.get("/api/v1/claims/C-404/letter", headers=bearer(token)), 404, "not_found")
    problem(api.get("/api/v1/nothing-here", headers=bearer(token)), 404, "not_found")
    problem(api.delete("/api/v1/claims/C-404", headers=bearer(token)), 405, "method_not_allowed")
    problem(api.get("/api/v1/claims?state=lost", headers=bearer(token)), 422, "invalid")
    problem(
        api.post(
            "/api/v1/claims/C-404/documents",
            files=[("document", ("a.txt", b"x"))],
            headers=bearer(token),
        ),
        404,
        "not_found",
    )
    assert kept(store) == (0, 0, [])


def test_a_claim_with_a_pdf_is_queued_and_reads_queued(store: Store, api: TestClient) -> None:
    token = store.add_client("core", ["submit", "read"], "ops")
    sent = files_of(INBOX / "C-1049.json", INBOX / "C-1049-plumber.pdf")
    answer = api.post("/api/v1/claims", files=sent, headers=bearer(token))
    assert answer.status_code == 202, answer.text
    assert answer.headers["location"] == "/api/v1/claims/C-1049"
    body = answer.json()
    assert (body["claim_id"], body["state"], body["intake"]) == ("C-1049", "queued", "queued")
    shown = api.get(answer.headers["location"], headers=bearer(token))
    assert shown.status_code == 200
    view = shown.json()
    assert (view["state"], view["decision"], view["sha256"]) == ("queued", None, body["sha256"])
    files, items, folder = kept(store)
    assert (files, items) == (1, 1)
    assert sorted(p.name for p in folder) == ["C-1049-plumber.pdf", "C-1049.json"]
    taken = store.take("worker")
    assert [Path(i.path).parent for i in taken] == [folder[0].parent]
    with store.read() as conn:
        bodies = conn.execute(select(t.audit_log.c.body).order_by(t.audit_log.c.seq)).scalars()
        calls = [json.loads(b) for b in bodies]
    assert [(c["call"], c["claim_id"], c["claim_sha256"]) for c in calls] == [
        ("POST /api/v1/claims", "C-1049", body["sha256"]),
        ("GET /api/v1/claims/{claim_id}", "C-1049", body["sha256"]),
    ]


def test_a_retry_with_the_same_key_gets_the_first_answer(store: Store, api: TestClient) -> None:
    token = store.add_client("core", ["submit", "read"], "ops")
    sent = files_of(INBOX / "C-1043.json", INBOX / "C-1043-plumber.txt")
    key = {**bearer(token), "Idempotency-Key": "claim-C-1043-1"}
    first = api.post("/api/v1/claims", files=sent, headers=key)
    again = api.post("/api/v1/claims", files=sent, headers=key)
    assert first.status_code == again.status_code == 202
    assert again.json() == first.json() and again.headers["location"] == first.headers["location"]
    assert again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    other = files_of(INBOX / "C-1048.json", INBOX / "C-1048-plumber.txt")
    problem(api.post("/api/v1/claims", files=other, headers=key), 422, "idempotency_key_reused")
    assert kept(store)[:2] == (1, 1)


def test_another_version_of_a_queued_claim_is_409_duplicate_id(
    store: Store, api: TestClient
) -> None:
    token = store.add_client("core", ["submit", "read"], "ops")
    path = INBOX / "C-1043.json"
    sent = files_of(path, INBOX / "C-1043-plumber.txt")
    assert api.post("/api/v1/claims", files=sent, headers=bearer(token)).status_code == 202
    before = kept(store)
    changed = json.loads(path.read_bytes()) | {"amount": 9999}
    other = files_of(path, INBOX / "C-1043-plumber.txt", claim_bytes=json.dumps(changed).encode())
    body = problem(
        api.post("/api/v1/claims", files=other, headers=bearer(token)), 409, "duplicate_id"
    )
    assert "already queued" in str(body["detail"])
    assert kept(store) == before


def test_claims_are_listed_a_page_at_a_time(store: Store, api: TestClient) -> None:
    token = store.add_client("core", ["submit", "read"], "ops")
    for name, attachment in (("C-1043", "C-1043-plumber.txt"), ("C-1048", "C-1048-plumber.txt")):
        sent = files_of(INBOX / f"{name}.json", INBOX / attachment)
        assert api.post("/api/v1/claims", files=sent, headers=bearer(token)).status_code == 202
    sent = files_of(INBOX / "C-1049.json", INBOX / "C-1049-plumber.pdf")
    assert api.post("/api/v1/claims", files=sent, headers=bearer(token)).status_code == 202
    first = api.get("/api/v1/claims?limit=2&state=queued", headers=bearer(token)).json()
    assert [c["claim_id"] for c in first["claims"]] == ["C-1043", "C-1048"]
    rest = api.get(first["next"], headers=bearer(token)).json()
    assert [c["claim_id"] for c in rest["claims"]] == ["C-1049"] and rest["next"] is None
    none = api.get("/api/v1/claims?state=decided", headers=bearer(token)).json()
    assert none == {"claims": [], "next": None}
    later = api.get("/api/v1/claims?since=2999-01-01T00:00:00Z", headers=bearer(token)).json()
    assert later["claims"] == []
    since = api.get("/api/v1/claims?since=2000-01-01", headers=bearer(token)).json()
    assert len(since["claims"]) == 3
    problem(api.get("/api/v1/claims?since=yesterday", headers=bearer(token)), 422, "invalid")
    problem(api.get("/api/v1/claims?cursor=nonsense", headers=bearer(token)), 422, "invalid")


def test_past_the_rate_limit_is_429_with_retry_after(store: Store) -> None:
    from claims_crew.review.web import create_app

    api = TestClient(create_app(store, ["testserver"], api=ApiSettings(calls_per_minute=2)))
    token = store.add_client("core", ["read"], "ops")
    for _ in range(2):
        problem(api.get("/api/v1/claims/C-1", headers=bearer(token)), 404, "not_found")
    refused = problem(api.get("/api/v1/claims/C-1", headers=bearer(token)), 429, "rate_limited")
    assert int(api.get("/api/v1/claims/C-1", headers=bearer(token)).headers["retry-after"]) >= 1
    assert "2 calls a minute" in str(refused["detail"])


def test_the_openapi_document_lists_every_route_with_its_answers(api: TestClient) -> None:
    document = api.get("/api/v1/openapi.json").json()
    routes = {
        (path, method): operation
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }
    assert set(routes) == {
        ("/claims", "post"),
        ("/claims", "get"),
        ("/claims/{claim_id}", "get"),
        ("/claims/{claim_id}/letter", "get"),
        ("/claims/{claim_id}/documents", "post"),
    }
    for (path, method), operation in routes.items():
        answers = operation["responses"]
        assert {"401", "403", "404", "413", "429"} <= set(answers) or path == "/claims", path
        assert any(s.startswith("2") for s in answers), (path, method)
    assert "ClaimView" in document["components"]["schemas"]
    # No page that loads scripts from elsewhere: the document is served, a docs page is not.
    assert api.get("/api/v1/docs").status_code == 401


def test_a_failure_in_a_route_is_a_500_problem_and_recorded(
    store: Store, api: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = store.add_client("core", ["read"], "ops")

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(store, "claim_states", broken)
    failed = problem(api.get("/api/v1/claims", headers=bearer(token)), 500, "internal_error")
    assert "fire" not in str(failed["detail"])
    with store.read() as conn:
        (body,) = conn.execute(select(t.audit_log.c.body)).scalars()
    assert json.loads(body)["call"] == "GET /api/v1/claims"


def test_a_body_over_the_cap_is_413_declared_or_streamed(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every route of the API (the claims route, sent to here, included) capped at 64 KiB.
    monkeypatch.setattr("claims_crew.api.guard.API_BODY_CAPS", BodyCaps((), otherwise=64 << 10))
    token = store.add_client("core", ["submit", "read"], "ops")
    with review_page(store, api=ApiSettings()) as port:
        url = f"http://127.0.0.1:{port}/api/v1/claims"
        big = files_of(INBOX / "C-1043.json", claim_bytes=b"{" + b" " * (100 << 10) + b"}")
        problem(httpx.post(url, files=big, headers=bearer(token)), 413, "payload_too_large")

        def chunks() -> Iterator[bytes]:
            yield b'--x\r\nContent-Disposition: form-data; name="claim"; filename="c.json"'
            yield b"\r\n\r\n"
            for _ in range(40):
                yield b" " * 4096

        streamed = httpx.post(
            url,
            content=chunks(),
            headers={**bearer(token), "Content-Type": "multipart/form-data; boundary=x"},
        )
        problem(streamed, 413, "payload_too_large")
    assert kept(store) == (0, 0, [])
