"""The HTTP API's edges, over the real store on both engines: a file name that names no file, an
empty query parameter, a route or method the API does not have, the OpenAPI document's error
answers; each answered as a problem (RFC 9457), never a 500, and as the document says."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from claims_crew.api.app import ApiSettings
from claims_crew.api.problems import ApiProblem
from claims_crew.api.submit import safe_name
from claims_crew.review.request_target import target_authority
from claims_crew.review.serving import http_protocol
from claims_crew.review.web import create_app
from claims_crew.settings import home
from claims_crew.store import Store
from tests.support.paths import ROOT
from tests.support.raw_http import exchange
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
    return TestClient(create_app(store, ["testserver"], api=ApiSettings()))


@pytest.fixture
def auth(store: Store) -> dict[str, str]:
    return {"Authorization": f"Bearer {store.add_client('core', ['submit', 'read'], 'ops')}"}


def problem(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert isinstance(body, dict)
    assert (body["status"], body["code"]) == (status, code)
    assert body["type"] == f"urn:claims-crew:problem:{code}"
    return body


def nothing_kept(store: Store) -> bool:
    folder = home() / "api"
    files = [p for p in folder.rglob("*")] if folder.exists() else []
    return store.claim_states(None, None, None, 10) == [] and files == []


# Names that, as paths, name no file: each would be the claim's folder itself (or above it).
NO_FILE_NAMES = [".", "..", "./.", ".//", "././", "./..", "/", "//", "...", ""]


def test_an_attachment_named_like_a_folder_is_422_and_keeps_nothing(
    store: Store, api: TestClient, auth: dict[str, str]
) -> None:
    claim = INBOX / "C-1043.json"
    for name in NO_FILE_NAMES:
        sent = [("claim", (claim.name, claim.read_bytes())), ("attachments", (name, b"plumber"))]
        body = problem(api.post("/api/v1/claims", files=sent, headers=auth), 422, "invalid")
        # An empty file name makes the part a plain form field, refused as not a file.
        assert ("file name" if name else "UploadFile") in str(body["detail"]), (name, body)
    assert nothing_kept(store)


def test_a_file_name_is_a_plain_relative_path_to_a_file() -> None:
    for name in NO_FILE_NAMES:
        with pytest.raises(ApiProblem) as refused:
            safe_name(name, "a document")
        assert refused.value.status_code == 422, name
    assert safe_name("photos/./kitchen.jpg", "a document") == "photos/kitchen.jpg"
    assert safe_name("..notes.txt", "a document") == "..notes.txt"


def test_an_empty_cursor_or_since_is_no_cursor_or_since(
    store: Store, api: TestClient, auth: dict[str, str]
) -> None:
    claim = INBOX / "C-1043.json"
    sent = [("claim", (claim.name, claim.read_bytes()))]
    sent.append(
        ("attachments", ("C-1043-plumber.txt", (INBOX / "C-1043-plumber.txt").read_bytes()))
    )
    assert api.post("/api/v1/claims", files=sent, headers=auth).status_code == 202
    for query in ("cursor=", "since=", "cursor=&since=&limit=1"):
        page = api.get(f"/api/v1/claims?{query}", headers=auth)
        assert page.status_code == 200, (query, page.text)
        assert [c["claim_id"] for c in page.json()["claims"]] == ["C-1043"], query
    problem(api.get("/api/v1/claims?cursor=%20", headers=auth), 422, "invalid")


def test_a_method_a_path_does_not_take_is_405_naming_every_method_it_does(
    api: TestClient, auth: dict[str, str]
) -> None:
    expected = {
        "/api/v1/claims": "GET, POST",
        "/api/v1/claims/C-1": "GET",
        "/api/v1/claims/C-1/letter": "GET",
        "/api/v1/claims/C-1/documents": "POST",
    }
    for path, allowed in expected.items():
        for method in ("OPTIONS", "DELETE", "PUT", "PATCH"):
            refused = api.request(method, path, headers=auth)
            problem(refused, 405, "method_not_allowed")
            assert refused.headers["allow"] == allowed, (method, path)


def test_a_path_under_api_that_no_route_serves_is_a_404_problem(
    api: TestClient, auth: dict[str, str]
) -> None:
    for path in ("/api", "/api/", "/api/v2/claims", "/api/v1/nothing", "/api/v1/claims/a/b"):
        body = problem(api.get(path, headers=auth), 404, "not_found")
        assert body["instance"] == path
    # The review page's own unknown paths are not the API's.
    assert api.get("/nothing").status_code == 404
    foreign = api.get("/api/v1/claims", headers={**auth, "Host": "evil.example"})
    problem(foreign, 403, "forbidden")


def test_the_document_describes_every_error_as_the_problem_the_api_sends(
    api: TestClient,
) -> None:
    document = api.get("/api/v1/openapi.json").json()
    problem_schema = {"$ref": "#/components/schemas/Problem"}
    operations = {
        (method.upper(), path): operation
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }
    for (method, path), operation in operations.items():
        errors = {s: a for s, a in operation["responses"].items() if s[0] in "45"}
        assert {"401", "403", "413", "422", "429"} <= set(errors), (method, path)
        assert ("404" in errors) == ("{claim_id}" in path), (method, path)
        for status, answer in errors.items():
            assert answer["content"] == {PROBLEM: {"schema": problem_schema}}, (path, status)
        # A multipart body the server cannot read (a broken boundary, too many parts) is a 400.
        assert ("400" in errors) == (method == "POST"), (method, path)
    assert "HTTPValidationError" not in document["components"]["schemas"]
    form = document["components"]["schemas"]["Body_documents_claims__claim_id__documents_post"]
    assert form["properties"]["document"]["minItems"] == 1


def test_a_multipart_body_the_server_cannot_read_is_a_400_problem(
    api: TestClient, auth: dict[str, str]
) -> None:
    broken = {**auth, "Content-Type": "multipart/form-data"}  # no boundary
    problem(api.post("/api/v1/claims", content=b"--x\r\n", headers=broken), 400, "bad_request")


@pytest.mark.parametrize("protocol", ["serve's", "h11"])
def test_an_absolute_form_target_is_checked_by_its_authority(
    store: Store, auth: dict[str, str], protocol: str
) -> None:
    http = http_protocol() if protocol == "serve's" else protocol
    with review_page(store, api=ApiSettings(), http=http) as port:
        ours = f"127.0.0.1:{port}"
        sent = {"Host": ours, **auth, "Connection": "close"}
        refused = exchange(port, "GET http://evil.example/api/v1/claims HTTP/1.1", sent)
        assert refused.status == 403, refused
        assert json.loads(refused.body)["code"] == "forbidden"
        page = exchange(port, f"GET HTTP://Evil.example:{port}/ HTTP/1.1", sent)
        assert page.status == 403, page
        if protocol == "serve's":  # the target's authority, not the Host header, is the host
            sent = {"Host": "evil.example", **auth, "Connection": "close"}
            taken = exchange(port, f"GET http://{ours}/api/v1/claims HTTP/1.1", sent)
            assert taken.status == 200, taken
            assert json.loads(taken.body) == {"claims": [], "next": None}
        plain = exchange(port, "GET /api/v1/claims HTTP/1.1", {**sent, "Host": ours})
        assert plain.status == 200, plain


def test_the_authority_of_a_target_in_absolute_form() -> None:
    assert target_authority(b"http://Evil.Example:8000/api?x=1") == "evil.example:8000"
    assert target_authority(b"https://user:pw@evil.example?q") == "evil.example"
    assert target_authority(b"http://[::1]:80/") == "[::1]:80"
    for other in (b"/api/v1/claims", b"*", b"evil.example:443", b"/http://evil.example/"):
        assert target_authority(other) is None


def test_a_submit_without_a_named_attachment_asks_for_that_part(
    store: Store, api: TestClient, auth: dict[str, str]
) -> None:
    claim = INBOX / "C-1043.json"
    refused = api.post(
        "/api/v1/claims", files=[("claim", (claim.name, claim.read_bytes()))], headers=auth
    )
    detail = str(problem(refused, 422, "invalid")["detail"])
    assert "send C-1043-plumber.txt as an `attachments` part" in detail, detail
    assert "No such file" not in detail and "cannot be read" not in detail
    assert nothing_kept(store)
