"""Three `claims-crew work --until-empty` processes on one store, one of them killed with SIGKILL
in the middle of a claim's review: the other two finish every claim, none is decided twice, and
no claim is sent to a model after its decision (the scripted server's own log says when each
call came). On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select

from claims_crew.run.ingest import ingest
from claims_crew.store import Store
from claims_crew.store import tables as t
from claims_crew.vocabulary import parse_stamp
from tests.support.openai_server import OpenAIServer, StartServer
from tests.support.paths import ROOT
from tests.support.provider import (
    CALLS_PER_REVIEW,
    CrewScript,
    claim_of,
    point_model_at,
    water_claims,
    water_replies,
)
from tests.support.sample_inbox import audit_ok
from tests.support.work_processes import CLAIMS_CREW, work_processes

pytestmark = pytest.mark.usefixtures("engine", "warm_index")

CLAIMS = [f"W-{n:02d}" for n in range(1, 13)]


def held_by(store: Store, pid: int) -> list[str]:
    """The claims a worker process holds now (its holders name host and pid)."""
    w = t.work_items.c
    prefix = f"{socket.gethostname()}:{pid}:"
    with store.read() as conn:
        return list(
            conn.scalars(
                select(w.claim_id).where(w.state == "pending", w.taken_by.startswith(prefix))
            )
        )


def kill_mid_claim(store: Store, server: OpenAIServer, victim: subprocess.Popen[bytes]) -> str:
    """Wait until the victim holds a claim its agents have already been asked about, then
    SIGKILL it (and reap it, so its pid is seen gone); the claim it was reviewing."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        asked = {claim_of(e.request) for e in server.exchanges}
        if under_way := [c for c in held_by(store, victim.pid) if c in asked]:
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            return under_way[0]
        assert victim.poll() is None, "the worker to be killed ended by itself"
        time.sleep(0.05)
    raise AssertionError("the worker to be killed never started a claim")


def test_two_of_three_workers_finish_every_claim_once_after_the_third_is_killed(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = CrewScript()
    for claim_id in CLAIMS:
        water_replies(script, claim_id)
    server = openai_server(script, latency_s=0.3)
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    store = Store()
    assert {r.state for r in ingest(water_claims(tmp_path / "inbox", *CLAIMS), store)} == {"queued"}
    wall_minus_monotonic = time.time() - time.monotonic()

    command = [CLAIMS_CREW, "work", "--until-empty", "--concurrency", "2"]
    with work_processes(command, dict(os.environ), 3, tmp_path / "worker") as workers:
        victim, *others = workers
        killed = kill_mid_claim(store, server, victim)
        codes = [worker.wait(timeout=300) for worker in others]
    logs = "\n".join(p.read_text(errors="replace") for p in sorted(tmp_path.glob("worker-*.log")))
    assert victim.returncode == -signal.SIGKILL
    assert codes == [0, 0], logs

    # Every claim decided, once: one decision, one attempt and one audit entry each.
    assert len(store.decisions()) == len(CLAIMS)
    assert {c: len(store.attempts(c)) for c in CLAIMS} == dict.fromkeys(CLAIMS, 1)
    with store.read() as conn:
        entries = dict(
            conn.execute(
                select(t.audit_log.c.claim_id, func.count()).group_by(t.audit_log.c.claim_id)
            ).all()
        )
        decided_at = {
            c: at
            for c, at in conn.execute(select(t.decisions.c.claim_id, t.decisions.c.decided_at))
        }
        tries = {
            c: n for c, n in conn.execute(select(t.work_items.c.claim_id, t.work_items.c.tries))
        }
    assert entries == dict.fromkeys(CLAIMS, 1)
    assert store.queue_counts().pending == 0
    assert audit_ok()

    # The killed worker's claim had been sent to the model, then was taken again and reviewed
    # whole by another worker.
    asked = Counter(claim_of(e.request) for e in server.exchanges)
    assert tries[killed] == 2
    assert asked[killed] > CALLS_PER_REVIEW
    assert asked[killed] < 2 * CALLS_PER_REVIEW
    assert all(asked[c] == CALLS_PER_REVIEW for c in CLAIMS if tries[c] == 1)
    # No claim was sent to a model after its decision.
    for exchange in server.exchanges:
        claim_id = claim_of(exchange.request)
        arrived = exchange.arrived + wall_minus_monotonic
        assert arrived < parse_stamp(decided_at[claim_id]).timestamp(), claim_id
