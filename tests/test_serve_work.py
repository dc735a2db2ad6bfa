"""`claims-crew serve --work 2`: two queue workers beside the server, and the webhook sender in
the server's own process; all stopped with the server (the workers by SIGTERM, then waited for),
on SQLite and on PostgreSQL."""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections import Counter
from pathlib import Path

import httpx
import pytest
import yaml

from claims_crew.settings import home
from claims_crew.store import Store
from claims_crew.store.outbox import announce
from tests.support.browser import free_port
from tests.support.openai_server import StartServer
from tests.support.paths import ROOT
from tests.support.receiver import Receiver, new_secret
from tests.support.sample_inbox import start
from tests.support.work_processes import CLAIMS_CREW, children, wait_for

pytestmark = [pytest.mark.usefixtures("engine"), pytest.mark.slow]

SECRET = new_secret()


def queue_workers(parent: int) -> list[int]:
    """The `claims-crew work` processes `parent` started."""
    return children(parent, lambda words: b"claims_crew.cli" in words and b"work" in words)


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_serve_runs_workers_and_the_sender_and_stops_them(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(openai_server, monkeypatch)
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    receiver = Receiver(SECRET).listen()
    endpoint = {
        "name": "core",
        "url": receiver.url,
        "secret_env": "CLAIMS_CREW_WEBHOOK_SECRET_CORE",
        "events": ["claim.decided"],
        "allow_private": True,  # the receiver listens on 127.0.0.1
    }
    webhooks = {"endpoints": [endpoint], "retry_s": [1], "timeout_s": 5}
    (config / "webhooks.yaml").write_text(yaml.safe_dump(webhooks), encoding="utf-8")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    monkeypatch.setenv("CLAIMS_CREW_WEBHOOK_SECRET_CORE", SECRET)
    store = Store()
    port = free_port()
    out = tmp_path / "serve.log"
    with out.open("wb") as log:
        server = subprocess.Popen(
            [CLAIMS_CREW, "serve", "--port", str(port), "--work", "2"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    logs = [home() / "serve" / f"work-{n}.log" for n in (1, 2)]
    try:
        wait_for(lambda: len(queue_workers(server.pid)) == 2, 60, "two queue workers")
        workers = queue_workers(server.pid)
        wait_for(
            lambda: all(p.exists() and "working at concurrency" in p.read_text() for p in logs),
            120,
            "both workers polling the queue",
        )
        wait_for(lambda: _answers(port), 60, "the page to answer")
        with store.write() as conn:  # a decision's event, as the store writes it
            announce(conn, "claim.decided", "C-1", {"claim_id": "C-1"}, store.now(), "evt_c1")
        wait_for(lambda: len(receiver.snapshot().requests) == 1, 60, "the webhook sent by serve")
        server.send_signal(signal.SIGINT)  # Ctrl-C: the server, then its workers, stop
        assert server.wait(timeout=120) == 0, out.read_text()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        receiver.close()
    said = out.read_text()
    assert "2 queue worker(s) reviewing what is queued" in said
    # Each worker was told once, gently, and had ended before serve did.
    for log in logs:
        assert log.read_text().count("SIGTERM: taking no more claims") == 1
    assert not any(alive(pid) for pid in workers)
    [delivery] = store.deliveries()
    assert (delivery.status, delivery.attempts, delivery.last_status) == ("delivered", 1, 204)
    # Delivered once, signed with the endpoint's secret (the receiver checked it).
    received = receiver.snapshot()
    assert received.accepted == Counter({"evt_c1": 1}) and received.rejected == 0
    assert [r.headers["webhook-id"] for r in received.requests] == ["evt_c1"]


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
