"""`claims-crew work` without --until-empty: it waits for claims, reviews those ingested while it
waits, and stops cleanly on SIGTERM (exit 0, nothing left held), on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from claims_crew.run.ingest import ingest
from claims_crew.store import Store
from tests.support.openai_server import StartServer
from tests.support.paths import ROOT
from tests.support.provider import CrewScript, point_model_at, water_claims, water_replies
from tests.support.sample_inbox import audit_ok
from tests.support.work_processes import CLAIMS_CREW, wait_for

pytestmark = pytest.mark.usefixtures("engine", "warm_index")


def test_a_waiting_worker_reviews_claims_ingested_later_and_stops_on_sigterm(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    claims = ["S-1", "S-2"]
    script = CrewScript()
    for claim_id in claims:
        water_replies(script, claim_id)
    point_model_at(openai_server(script), monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    store = Store()
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [CLAIMS_CREW, "work", "--concurrency", "2"], stdout=out, stderr=subprocess.STDOUT
        )
    try:
        wait_for(lambda: "working at concurrency 2" in log.read_text(), 120, "the worker to poll")
        ingest(water_claims(tmp_path / "inbox", *claims), store)
        wait_for(lambda: len(store.decisions()) == len(claims), 120, "both claims decided")
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) == 0, log.read_text()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    said = log.read_text()
    assert "SIGTERM: taking no more claims" in said
    assert "S-1.json: reviewed in" in said and "S-2.json: reviewed in" in said
    counts = store.queue_counts()
    assert (counts.pending, counts.held, counts.done) == (0, 0, len(claims))
    assert audit_ok()
