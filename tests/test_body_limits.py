"""Request bodies on the review page, served by real uvicorn: capped before they are read, refused
without a session before they are read, and a CSRF token of any characters refused with 403.

Each refusal is checked by sending a request's head and only part of its body, then reading the
answer: a server that waited for the whole body would never answer (and the test would fail on
its socket's bound), so an answer proves the rest was never needed, however fast either side is.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from claims_crew.api.body_limit import APPEAL_BODY_BYTES, FORM_BODY_BYTES
from claims_crew.api.body_limit import PAGE_BODY_CAPS as body_cap
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.body_limits import needs_session
from claims_crew.review.web import SECURITY_HEADERS, SESSION_COOKIE
from claims_crew.store import Store
from tests.support.raw_http import GIVE_UP_S, Answer, open_request, read_answer, send_chunk
from tests.support.store import record_for, water_loaded
from tests.support.web import review_page

pytestmark = pytest.mark.usefixtures("engine")

BOUNDARY = "caps"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
FORM = "application/x-www-form-urlencoded"
APPEAL = "/escalations/C-1042/appeal"
DECIDE = "/escalations/C-1042/decide"


class Appeals:
    """A stand-in for the appeal routine: records each appeal's files and their sizes."""

    def __init__(self) -> None:
        self.seen: list[dict[str, int]] = []

    def __call__(self, claim_id: str, files: list[Path], reason: str) -> str | None:
        self.seen.append({path.name: path.stat().st_size for path in files})
        return None


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    store.record(record_for(water, sample_library), None, water)
    store.add_reviewer("ana")
    return store


@pytest.fixture
def appeals() -> Appeals:
    return Appeals()


@pytest.fixture
def port(store: Store, appeals: Appeals) -> Iterator[int]:
    with review_page(store, appeals) as port:
        yield port


def session_of(store: Store) -> tuple[str, str]:
    """A live session of ana's: (its Cookie header, its CSRF token)."""
    session_id = store.open_session("ana")
    live = store.session(session_id)
    assert live is not None
    return f"{SESSION_COOKIE}={session_id}", live.csrf


def page_client(port: int, cookie: str) -> httpx.Client:
    """An HTTP client of the page in ana's session (bounded only as a failing test's guard)."""
    return httpx.Client(
        base_url=f"http://127.0.0.1:{port}", headers={"Cookie": cookie}, timeout=GIVE_UP_S
    )


def file_part_head(name: str) -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="attachments"; '
        f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()


def refused_early(answer: Answer, status: int) -> None:
    """A refusal with the page's headers, after which the server closed the connection rather
    than read the rest of the body."""
    assert answer.status == status, answer
    assert answer.headers.get("connection") == "close" and answer.closed
    for name, value in SECURITY_HEADERS.items():
        assert answer.headers[name.lower()] == value


def test_each_route_kind_has_its_cap_and_only_sign_in_takes_a_body_without_a_session() -> None:
    assert body_cap("POST", APPEAL) == APPEAL_BODY_BYTES > 48 << 20
    for method, path in (("POST", DECIDE), ("POST", "/login"), ("GET", APPEAL)):
        assert body_cap(method, path) == FORM_BODY_BYTES
    assert not needs_session("POST", "/login") and not needs_session("GET", "/")
    assert needs_session("POST", "/logout") and needs_session("PUT", APPEAL)


def test_an_upload_without_a_session_is_refused_before_it_is_read(port: int) -> None:
    """The issue's case: a large multipart POST to the appeal route, no session cookie."""
    streamed = {"Content-Type": MULTIPART, "Transfer-Encoding": "chunked"}
    with open_request(port, APPEAL, streamed) as sock:
        send_chunk(sock, file_part_head("big.bin") + b"\0" * (64 << 10))
        answer = read_answer(sock)  # of a body of any length, 64 KB sent
    refused_early(answer, 401)
    assert answer.body == b"Sign in first"

    declared = {"Content-Type": MULTIPART, "Content-Length": str(APPEAL_BODY_BYTES - 1)}
    with open_request(port, APPEAL, declared) as sock:
        sock.sendall(file_part_head("big.bin"))
        refused_early(read_answer(sock), 401)

    # A plain form as well; and signing out with no session still leads to the sign-in form.
    with open_request(port, DECIDE, {"Content-Type": FORM, "Content-Length": "1000"}) as sock:
        sock.sendall(b"decision=covered&")
        refused_early(read_answer(sock), 401)
    with open_request(port, "/logout", {"Content-Type": FORM, "Content-Length": "1000"}) as sock:
        answer = read_answer(sock)
        refused_early(answer, 303)
        assert answer.headers["location"] == "/login"


def test_a_foreign_host_is_refused_and_the_rest_of_its_body_never_read(port: int) -> None:
    declared = {"Content-Type": MULTIPART, "Content-Length": str(APPEAL_BODY_BYTES - 1)}
    with open_request(port, APPEAL, declared, host="evil.example") as sock:
        sock.sendall(file_part_head("big.bin"))
        answer = read_answer(sock)
    refused_early(answer, 403)
    assert answer.body == b"Forbidden: unknown Host header"


def test_a_declared_length_over_the_cap_is_413_before_a_byte_is_read(
    port: int, store: Store
) -> None:
    cookie, _ = session_of(store)
    kinds = ((APPEAL, APPEAL_BODY_BYTES, MULTIPART), (DECIDE, FORM_BODY_BYTES, FORM))
    for path, cap, kind in kinds:
        for who in ({"Cookie": cookie}, {}):  # signed in or not: the length alone decides
            headers = {**who, "Content-Type": kind, "Content-Length": str(64 << 20)}
            with open_request(port, path, headers) as sock:
                answer = read_answer(sock)  # nothing of the body sent
            refused_early(answer, 413)
            assert f"at most {cap:,} bytes" in answer.body.decode()


def test_a_streamed_body_is_refused_once_it_passes_the_cap(
    port: int, store: Store, appeals: Appeals
) -> None:
    """Chunked, so no length is declared: the server counts what arrives. The client sends one
    byte past the cap and nothing more; an answer means the server stopped there."""
    cookie, csrf = session_of(store)
    form = f"csrf={csrf}&decision=covered&reason=".encode()
    headers = {"Cookie": cookie, "Content-Type": FORM, "Transfer-Encoding": "chunked"}
    with open_request(port, DECIDE, headers) as sock:
        send_chunk(sock, form + b"x" * (FORM_BODY_BYTES + 1 - len(form)))
        refused_early(read_answer(sock), 413)

    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{csrf}\r\n'
    head_bytes = head.encode() + file_part_head("big.bin")
    headers = {"Cookie": cookie, "Content-Type": MULTIPART, "Transfer-Encoding": "chunked"}
    with open_request(port, APPEAL, headers) as sock:
        send_chunk(sock, head_bytes)
        left = APPEAL_BODY_BYTES + 1 - len(head_bytes)
        block = b"\0" * (1 << 20)
        while left:
            send_chunk(sock, block[:left])
            left -= min(left, len(block))
        answer = read_answer(sock)
    refused_early(answer, 413)
    assert f"at most {APPEAL_BODY_BYTES:,} bytes" in answer.body.decode()
    assert appeals.seen == []
    assert store.escalation("C-1042").state == "open"


def test_a_csrf_token_that_is_not_ascii_is_refused_and_nothing_is_written(
    port: int, store: Store
) -> None:
    """It used to be a 500 on every form: compare_digest raised on a str of non-ASCII."""
    cookie, _ = session_of(store)
    entries = len(store.audit_entries("C-1042"))
    with page_client(port, cookie) as c:
        for token in ("tökén", "\u202e", "\U0001f600" * 43):
            for path, form in (
                (DECIDE, {"decision": "covered", "reason": "dated", "version": "1"}),
                ("/escalations/C-1042/confirm", {"reason": "agreed"}),
                ("/logout", {}),
            ):
                response = c.post(path, data={**form, "csrf": token})
                assert response.status_code == 403, (path, token, response.text)
                assert response.text == "Forbidden: missing or wrong CSRF token"
        # Sign-in's form token too, against the cookie it is tied to.
        c.get("/login")
        response = c.post("/login", data={"token": "x", "csrf": "tökén"})
        assert response.status_code == 403
    assert store.reviews() == [] and store.escalation("C-1042").state == "open"
    assert len(store.audit_entries("C-1042")) == entries
    assert store.session(cookie.split("=", 1)[1]) is not None  # not signed out either


def test_the_forms_still_work_within_their_caps(port: int, store: Store, appeals: Appeals) -> None:
    """An appeal past a plain form's cap is taken: its route has the appeal's cap."""
    cookie, csrf = session_of(store)
    with page_client(port, cookie) as c:
        upload = b"p" * (2 << 20)  # past a plain form's cap, well within an appeal's
        response = c.post(
            APPEAL,
            data={"reason": "The plumber dates the leak.", "csrf": csrf},
            files={"attachments": ("plumber.pdf", upload, "application/pdf")},
        )
        assert response.status_code == 303, response.text
        assert appeals.seen == [{"plumber.pdf": len(upload)}]
        assert response.headers.get("connection") != "close"

        reason = "Dated by the plumber. " * 100
        form = {"decision": "covered", "reason": reason, "version": "1", "csrf": csrf}
        response = c.post(DECIDE, data={**form, "clause": "4.2(b)"})
        assert response.status_code == 303, response.text
    [review] = store.reviews()
    assert review.decision == "covered" and review.reviewer == "ana"
