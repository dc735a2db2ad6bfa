"""`claims-crew serve` for a team: Secure cookies over HTTPS, proxies, several processes.

The cookie tests use Starlette's TestClient on the app; the process test starts the real
command, two uvicorn workers on one store, and talks HTTP to it as a browser behind a reverse
proxy would.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import select

from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.serving import (
    APP_FACTORY,
    SETTINGS_VARIABLE,
    ServeSettings,
    app_from_environment,
    export_settings,
)
from claims_crew.review.web import LOGIN_CSRF_COOKIE, SESSION_COOKIE, create_app
from claims_crew.store import Store
from claims_crew.store.tables import sign_in_attempts
from tests.support.browser import free_port
from tests.support.store import record_for, water_loaded
from tests.support.work_processes import children

pytestmark = pytest.mark.usefixtures("engine")

PUBLIC_HOST = "review.example.com"
CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')
# What nginx adds in front of the page (docs/scale-out.md, "The review page for a team").
PROXY_HEADERS = {
    "Host": PUBLIC_HOST,
    "X-Forwarded-Proto": "https",
    "X-Forwarded-For": "203.0.113.9",
}


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """The water claim escalated, in the store every command opens."""
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    store.record(record_for(water, sample_library), None, water)
    return store


def set_cookies(response: httpx.Response) -> dict[str, str]:
    """Each Set-Cookie header of a response, by cookie name."""
    return {header.split("=", 1)[0]: header for header in response.headers.get_list("set-cookie")}


def is_secure(set_cookie: str) -> bool:
    return "secure" in [part.strip().lower() for part in set_cookie.split(";")]


def sign_in_and_out(client: TestClient, token: str) -> list[str]:
    """Every Set-Cookie header of a sign-in and a sign-out, in order."""
    form = client.get("/login")
    csrf = CSRF_FIELD.search(form.text)
    assert form.status_code == 200 and csrf is not None
    # TestClient keeps cookies as a browser would; a Secure one only goes back over https,
    # so the cookies are sent by hand: what is checked is what the server sets.
    login_csrf = set_cookies(form)[LOGIN_CSRF_COOKIE].split(";")[0]
    signed = client.post(
        "/login",
        data={"token": token, "csrf": csrf[1]},
        headers={"cookie": login_csrf},
    )
    assert signed.status_code == 303, signed.text
    session = set_cookies(signed)[SESSION_COOKIE].split(";")[0]
    page = client.get("/", headers={"cookie": session})
    page_csrf = CSRF_FIELD.search(page.text)
    assert page.status_code == 200 and page_csrf is not None
    out = client.post("/logout", data={"csrf": page_csrf[1]}, headers={"cookie": session})
    assert out.status_code == 303
    return [
        *set_cookies(form).values(),
        *set_cookies(signed).values(),
        *set_cookies(out).values(),
    ]


def test_with_https_every_cookie_is_secure(store: Store) -> None:
    token = store.add_reviewer("ana")
    app = create_app(store, ["testserver"], secure_cookies=True)

    headers = sign_in_and_out(TestClient(app, follow_redirects=False), token)

    # The sign-in form's CSRF cookie, the session, and the deletions of both.
    assert len(headers) == 4
    assert all(is_secure(h) and "httponly" in h.lower() for h in headers), headers
    assert all("samesite=strict" in h.lower() for h in headers), headers


def test_a_request_over_https_gets_secure_cookies_by_itself(store: Store) -> None:
    """As it is behind a trusted proxy that says X-Forwarded-Proto: https."""
    token = store.add_reviewer("ana")
    app = create_app(store, ["testserver"])
    client = TestClient(app, base_url="https://testserver", follow_redirects=False)

    headers = sign_in_and_out(client, token)

    assert len(headers) == 4 and all(is_secure(h) for h in headers), headers


def test_over_plain_http_cookies_are_not_secure(store: Store) -> None:
    """A page on 127.0.0.1 for one reviewer: a Secure cookie would never come back."""
    token = store.add_reviewer("ana")
    app = create_app(store, ["testserver"])

    headers = sign_in_and_out(TestClient(app, follow_redirects=False), token)

    assert len(headers) == 4 and not any(is_secure(h) for h in headers), headers


def test_each_process_builds_the_app_serve_asked_for(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(SETTINGS_VARIABLE, raising=False)
    with pytest.raises(ConfigError, match=SETTINGS_VARIABLE):
        app_from_environment()
    # export_settings writes os.environ directly; monkeypatch puts it back afterwards.
    monkeypatch.setenv(SETTINGS_VARIABLE, "")
    export_settings(ServeSettings(allowed_hosts=[PUBLIC_HOST], secure_cookies=True))

    app = app_from_environment()

    public = TestClient(app, base_url=f"http://{PUBLIC_HOST}")
    form = public.get("/login")
    assert form.status_code == 200
    assert is_secure(set_cookies(form)[LOGIN_CSRF_COOKIE])
    assert TestClient(app).get("/login").status_code == 403  # Host: testserver is not ours


def test_a_trusted_proxy_must_be_an_address() -> None:
    result = CliRunner().invoke(main, ["serve", "--trusted-proxy", "proxy.internal"])
    assert result.exit_code == 2
    assert "'proxy.internal' is not an IP address or network" in result.output


def test_serve_hands_its_choices_to_uvicorn(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    monkeypatch.setenv(SETTINGS_VARIABLE, "")
    calls: list[tuple[object, dict[str, object]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: calls.append((app, options)))

    team = CliRunner().invoke(
        main,
        [
            *("serve", "--workers", "3", "--https", "--allowed-host", PUBLIC_HOST),
            *("--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "127.0.0.1"),
        ],
    )
    exported = ServeSettings.model_validate_json(os.environ[SETTINGS_VARIABLE])
    alone = CliRunner().invoke(main, ["serve"])

    assert team.exit_code == 0 and alone.exit_code == 0, team.output + alone.output
    assert "2 processes" not in alone.output and "3 processes" in team.output
    (app, options), (_, plain) = calls
    assert app == APP_FACTORY and options["factory"] is True and options["workers"] == 3
    assert options["proxy_headers"] is True
    assert options["forwarded_allow_ips"] == ["10.0.0.0/8", "127.0.0.1"]
    # Without --trusted-proxy no forwarded header is believed, from anywhere.
    assert plain["proxy_headers"] is False and plain["workers"] == 1
    # What each process builds its app from.
    assert exported.secure_cookies is True
    assert PUBLIC_HOST in exported.allowed_hosts and "127.0.0.1:8000" in exported.allowed_hosts


# ---- two processes ------------------------------------------------------------------------


def _workers(parent: int) -> list[int]:
    """The uvicorn worker processes `parent` started (multiprocessing's spawned children)."""
    return children(
        parent,
        lambda words: (
            any(b"spawn_main" in w for w in words)
            and not any(b"resource_tracker" in w for w in words)
        ),
    )


@contextmanager
def serving(port: int) -> Iterator[tuple[int, list[int]]]:
    """`claims-crew serve --workers 2` as a team runs it behind a proxy on this machine;
    (its process id, its two workers)."""
    command = [
        sys.executable,
        "-c",
        "from claims_crew.cli import main; main()",
        "serve",
        "--port",
        str(port),
        "--workers",
        "2",
        "--allowed-host",
        PUBLIC_HOST,
        "--https",
        "--trusted-proxy",
        "127.0.0.1",
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        workers = _workers(server.pid)
        while len(workers) < 2:
            assert server.poll() is None, server.stdout.read() if server.stdout else ""
            assert time.monotonic() < deadline, "serve did not start two workers"
            time.sleep(0.1)
            workers = _workers(server.pid)
        yield server.pid, workers
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class Connection:
    """One keep-alive HTTP connection to the page, through the proxy as it were; every request
    on it goes to the same worker."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.http.connect()

    def request(
        self, method: str, path: str, cookie: str = "", form: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        """(status, Set-Cookie headers by cookie name, body)."""
        headers = {**PROXY_HEADERS, **({"Cookie": cookie} if cookie else {})}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.http.request(method, path, body=body, headers=headers)
        response = self.http.getresponse()
        text = response.read().decode("utf-8")
        cookies = {
            value.split("=", 1)[0]: value
            for name, value in response.getheaders()
            if name.lower() == "set-cookie"
        }
        return response.status, cookies, text

    def worker(self, workers: list[int]) -> int | None:
        """Which worker holds the server's end of this connection (from /proc)."""
        assert self.http.sock is not None
        mine = self.http.sock.getsockname()[1]
        inodes = set()
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = fields[1], fields[2]
            if int(local.split(":")[1], 16) == self.port and int(remote.split(":")[1], 16) == mine:
                inodes.add(f"socket:[{fields[9]}]")
        for pid in workers:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    if os.readlink(fd) in inodes:
                        return pid
                except OSError:
                    continue
        return None

    def close(self) -> None:
        self.http.close()


def connection_to(port: int, worker: int, workers: list[int]) -> Connection:
    """A connection served by `worker`: new connections until the kernel hands one to it
    (each goes to whichever worker accepts first), the first request waiting for startup."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            connection = Connection(port)
        except ConnectionRefusedError:  # no worker listens yet
            time.sleep(0.2)
            continue
        status, _, _ = connection.request("GET", "/review.css")
        assert status == 200
        if connection.worker(workers) == worker:
            return connection
        connection.close()
    raise AssertionError(f"worker {worker} took no connection in 90 s")


@pytest.mark.slow
def test_two_processes_share_the_sign_in_and_the_decision(store: Store) -> None:
    token = store.add_reviewer("ana")
    port = free_port()
    with serving(port) as (_, workers):
        first, second = workers

        signing_in = connection_to(port, first, workers)
        status, cookies, form = signing_in.request("GET", "/login")
        csrf = CSRF_FIELD.search(form)
        assert status == 200 and csrf is not None
        login_cookie = cookies[LOGIN_CSRF_COOKIE]
        wrong = {"token": "a guess", "csrf": csrf[1]}
        status, _, _ = signing_in.request(
            "POST", "/login", cookie=login_cookie.split(";")[0], form=wrong
        )
        assert status == 401
        # The failure counts against the client the trusted proxy named, not the proxy.
        with store.read() as conn:
            assert conn.execute(select(sign_in_attempts.c.client)).scalars().all() == [
                "203.0.113.9"
            ]
        status, cookies, _ = signing_in.request(
            "POST",
            "/login",
            cookie=login_cookie.split(";")[0],
            form={"token": token, "csrf": csrf[1]},
        )
        assert status == 303
        assert signing_in.worker(workers) == first
        signing_in.close()
        session_cookie = cookies[SESSION_COOKIE]
        # X-Forwarded-Proto: https from the trusted proxy: the cookies are Secure.
        assert is_secure(login_cookie) and is_secure(session_cookie)
        session = session_cookie.split(";")[0]

        deciding = connection_to(port, second, workers)
        status, _, page = deciding.request("GET", "/escalations/C-1042", cookie=session)
        page_csrf = CSRF_FIELD.search(page)
        assert status == 200 and page_csrf is not None
        status, _, _ = deciding.request(
            "POST",
            "/escalations/C-1042/decide",
            cookie=session,
            # Covered, at 4,200: under config/desk.yaml's four-eyes rules (every denial, and
            # payments over 10,000) this one decision decides.
            form={
                "decision": "covered",
                "reason": "A sudden discharge, as 4.2(b) says.",
                "version": "1",
                "clause": "4.2(b)",
                "csrf": page_csrf[1],
            },
        )
        assert status == 303
        assert deciding.worker(workers) == second
        deciding.close()

    done = store.escalation("C-1042")
    assert (done.state, done.decided_by, done.decision) == ("decided", "ana", "covered")
    assert store.verify_audit().ok
