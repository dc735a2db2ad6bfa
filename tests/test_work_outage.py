"""`claims-crew work` across a PostgreSQL restart: two workers with claims in hand ride it out,
every claim is decided once, and both are still working afterwards. A database gone for longer
than CLAIMS_CREW_DATABASE_WAIT ends a worker with one clear line and status 1, not a traceback.
Only a lost connection is waited for: a wrong statement fails at once.

Each test has a cluster of its own (tests/support/postgres.py: restartable_postgres), killed as a
crash would kill it (`pg_ctl -m immediate`) and started again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from claims_crew.run.ingest import ingest
from claims_crew.store import Store
from claims_crew.store.outage import lost_database
from tests.support.openai_server import ChatRequest, Reply, Respond, StartServer
from tests.support.paths import ROOT
from tests.support.postgres import Cluster
from tests.support.provider import CrewScript, point_model_at, water_claims, water_replies
from tests.support.sample_inbox import audit_ok
from tests.support.work_processes import (
    decided_once,
    wait_for,
    wait_until_polling,
    work_command,
    work_processes,
)

pytestmark = pytest.mark.usefixtures("warm_index")

CLAIMS = [f"R-{n}" for n in range(1, 7)]
WORKERS, CONCURRENCY = 2, 2
# What a worker says when it finds the database gone, and when it is back (store/outage.py).
GONE, BACK = "trying again for up to", "reachable again after"


def on_cluster(
    cluster: Cluster, respond: Respond, openai_server: StartServer, mp: pytest.MonkeyPatch
) -> Store:
    """The store on the cluster and the model on the scripted server, named in the environment
    as a user would name them (the workers inherit it); the test's own view of the store."""
    mp.setenv("CLAIMS_CREW_DATABASE_URL", cluster.url)
    mp.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    mp.setenv("CLAIMS_CREW_MODEL_TIMEOUT", "600")  # the held calls below wait, unretried
    point_model_at(openai_server(respond), mp)
    return Store()


def said(logs: list[Path]) -> str:
    return "\n".join(log.read_text(errors="replace") for log in logs if log.exists())


def running(workers: list[subprocess.Popen[bytes]], logs: list[Path]) -> bool:
    """Every worker still runs (else fail at once, with what they said)."""
    assert [worker.poll() for worker in workers] == [None] * len(workers), said(logs)
    return True


def test_two_workers_ride_out_a_database_restart_and_decide_every_claim_once(
    tmp_path: Path,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    restartable_postgres: Cluster,
) -> None:
    script = CrewScript()
    for claim_id in CLAIMS:
        water_replies(script, claim_id)
    arrived, answer = threading.Semaphore(0), threading.Event()

    def respond(request: ChatRequest) -> Reply:
        """No answer until the database is down, so that it goes down with claims in hand."""
        arrived.release()
        answer.wait(timeout=600)
        return script(request)

    store = on_cluster(restartable_postgres, respond, openai_server, monkeypatch)
    logs = [tmp_path / f"worker-{n}.log" for n in range(WORKERS)]
    command = work_command(CONCURRENCY)
    with work_processes(command, dict(os.environ), WORKERS, tmp_path / "worker") as workers:
        wait_until_polling(store, workers)
        ingest(water_claims(tmp_path / "inbox", *CLAIMS), store)
        for _ in range(WORKERS * CONCURRENCY):  # every thread has a claim at the model
            assert arrived.acquire(timeout=600), "the workers never took four claims"
        restartable_postgres.stop()
        answer.set()
        # Before its next model call each asks the store whether its lease holds, finds the
        # database gone, and waits for it.
        wait_for(
            lambda: running(workers, logs) and all(GONE in said([log]) for log in logs),
            600,
            "both workers to find the database gone",
        )
        restartable_postgres.start()
        wait_for(
            lambda: (
                running(workers, logs)
                and len(store.decisions()) == len(CLAIMS)
                and store.queue_counts().pending == 0
            ),
            600,
            "every claim decided",
        )
        assert running(workers, logs)
        assert decided_once(store, CLAIMS) == []
        assert audit_ok()
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        assert [worker.wait(timeout=120) for worker in workers] == [0] * WORKERS, said(logs)
    assert all(BACK in said([log]) for log in logs)
    assert "Traceback" not in said(logs)


def test_a_database_gone_past_the_wait_ends_the_worker_with_one_line(
    tmp_path: Path,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    restartable_postgres: Cluster,
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_DATABASE_WAIT", "1")
    store = on_cluster(restartable_postgres, CrewScript(), openai_server, monkeypatch)
    log = tmp_path / "worker-0.log"
    with work_processes(work_command(1), dict(os.environ), 1, tmp_path / "worker") as [worker]:
        wait_until_polling(store, [worker])
        restartable_postgres.stop()  # and not started again
        assert worker.wait(timeout=600) == 1, said([log])
    errors = [line for line in said([log]).splitlines() if line.startswith("error")]
    assert len(errors) == 1, said([log])
    assert errors[0].startswith(
        f"error [database_unavailable]: the database {store.where} has been unreachable for "
        "more than 1 s (CLAIMS_CREW_DATABASE_WAIT); giving up: "
    )
    assert "Traceback" not in said([log])


def test_only_a_lost_connection_is_waited_for(postgres_url: str, tmp_path: Path) -> None:
    """A wrong statement is raised at once on either engine; a server nobody can reach is
    waited for."""
    for store in (Store(url=postgres_url), Store(tmp_path / "claims.sqlite")):
        with pytest.raises(DBAPIError) as wrong, store.read() as conn:
            conn.execute(text("SELECT * FROM no_such_table"))
        assert not lost_database(wrong.value)
    nowhere = f"postgresql+psycopg://postgres@/postgres?host={tmp_path}&port=5432"
    with pytest.raises(DBAPIError) as gone, create_engine(nowhere).connect():
        pass
    assert lost_database(gone.value)
