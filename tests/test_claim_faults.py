"""No claim can kill the process that reviews it.

A claim whose review raises (as one reported on 9999-12-31 did, its deadline no date) is that
claim's failure, `review_failed`, its traceback in the claim's log: a run goes on and prints its
table, and each `work` process goes on with the other claims. A claim that fails so
CLAIMS_CREW_MAX_FAILURES times is parked as `failed`, taken by no worker or run, until
`claims-crew requeue ID`. And the dates that overflowed are refused at intake, naming the field.
On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import select

from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.models import latest_claim_date
from claims_crew.run.claim_log import log_path
from claims_crew.run.context import RunContext
from claims_crew.run.ingest import ingest
from claims_crew.settings import Limits
from claims_crew.store import Store
from claims_crew.store import tables as t
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
from tests.support.raising_review import RAISED, overflowing_basis
from tests.support.sample_inbox import audit_ok
from tests.support.work_processes import work_processes

pytestmark = pytest.mark.usefixtures("engine", "warm_index")

BAD = "W-02"


def serve(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, *claims: str
) -> OpenAIServer:
    script = CrewScript()
    for claim_id in claims:
        water_replies(script, claim_id)
    server = openai_server(script)
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    return server


def item(store: Store, claim_id: str) -> dict[str, object]:
    w = t.work_items.c
    with store.read() as conn:
        row = conn.execute(
            select(w.state, w.failures, w.failure_reasons, w.requeued_by).where(
                w.claim_id == claim_id
            )
        ).one()
    return {**row._asdict(), "failure_reasons": json.loads(row.failure_reasons)}


def asked(server: OpenAIServer) -> Counter[str]:
    return Counter(claim_of(e.request) for e in server.exchanges)


def tries_said(store: Store, claim_id: str) -> str:
    """Each attempt at the claim as its record has it (the calls it counted, its error), and the
    claim's log: what a failed count of the server's requests is read beside."""
    tries = [
        f"{a.status} {a.model_calls} {a.error.code if a.error else ''}: "
        f"{a.error.message.splitlines()[0] if a.error and a.error.message else ''}"
        for a in store.attempts(claim_id)
    ]
    path = log_path(claim_id)
    log = path.read_text(errors="replace")[-6000:] if path.exists() else "(no log)"
    return "\n".join([*tries, log])


def requeue(claim_id: str) -> Result:
    return CliRunner().invoke(main, ["requeue", claim_id])


# (field, value): a date the desk's clocks overflow on, and one before any policy in force.
OUT_OF_WINDOW = (("date_reported", "9999-12-31"), ("date_of_loss", "1899-12-31"))


def dated(path: Path, field: str, value: str) -> Path:
    path.write_text(json.dumps({**json.loads(path.read_text()), field: value}))
    return path


def test_a_date_no_deadline_can_follow_is_refused_at_ingest(tmp_path: Path) -> None:
    good, *bad = water_claims(tmp_path, "W-01", "W-02", "W-03")
    files = [good, *(dated(p, *case) for p, case in zip(bad, OUT_OF_WINDOW, strict=True))]

    results = ingest(files, Store())

    assert results[0].state == "queued"
    for result, (field, value) in zip(results[1:], OUT_OF_WINDOW, strict=True):
        assert result.refused and result.code == "invalid"
        said = f"{field}: Value error, {value} is outside the dates a claim may carry"
        assert said in str(result.error)
    assert Store().queue_counts().pending == 1


def test_the_window_runs_to_a_week_past_today(tmp_path: Path) -> None:
    latest = latest_claim_date()
    assert latest - datetime.now(UTC).date() == timedelta(days=7)
    inside, outside = water_claims(tmp_path, "W-01", "W-02")
    dated(inside, "date_reported", latest.isoformat())
    dated(outside, "date_reported", (latest + timedelta(days=1)).isoformat())

    results = ingest([inside, outside], Store())

    assert [r.state for r in results] == ["queued", None]


def test_a_run_goes_on_past_a_claim_whose_review_raises_and_parks_it_after_three(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    claims = ["W-01", BAD, "W-03"]
    server = serve(openai_server, monkeypatch, *claims)
    water_claims(tmp_path / "inbox", *claims)
    monkeypatch.setattr(RunContext, "basis", overflowing_basis(BAD))

    def run() -> Result:
        return CliRunner().invoke(main, ["run", "--inbox", str(tmp_path / "inbox")])

    first = run()

    # The run went on: its table, the other claims decided, and status 1 for the failed one.
    said = first.output + first.stderr
    assert first.exception is None or isinstance(first.exception, SystemExit), said
    assert first.exit_code == 1, said
    assert "review_failed" in said and RAISED in said
    store = Store()
    assert sorted(d.claim_id for d in store.decisions()) == ["W-01", "W-03"]
    [attempt] = store.attempts(BAD)
    assert attempt.error is not None and attempt.error.code == "review_failed"
    assert attempt.model_calls  # the calls it paid for are kept with the failure
    log = log_path(BAD).read_text()
    assert "Traceback" in log and f"OverflowError: {RAISED}" in log
    assert item(store, BAD)["state"] == "pending" and item(store, BAD)["failures"] == 1

    # Two more runs try it again; the third failure parks it.
    for _ in range(2):
        assert run().exit_code == 1
    parked = item(store, BAD)
    assert parked["state"] == "failed" and parked["failures"] == 3
    reasons = parked["failure_reasons"]
    assert isinstance(reasons, list) and len(reasons) == 3
    assert all(f"review_failed: OverflowError: {RAISED}" in r for r in reasons)

    # Parked: a fourth run sends it to no model, and says why it is not reviewed.
    before = asked(server)[BAD]
    fourth = run()
    assert fourth.exit_code == 1
    assert "parked" in fourth.output and f"claims-crew requeue {BAD}" in fourth.output
    assert asked(server)[BAD] == before == 3 * CALLS_PER_REVIEW
    assert asked(server)["W-01"] == asked(server)["W-03"] == CALLS_PER_REVIEW

    # Re-queued by a person, it is reviewed by the next run again.
    again = requeue(BAD)
    assert again.exit_code == 0, again.output
    assert "had failed 3 time(s)" in again.output
    assert item(store, BAD)["state"] == "pending" and item(store, BAD)["failures"] == 0
    assert run().exit_code == 1
    assert asked(server)[BAD] == 4 * CALLS_PER_REVIEW
    assert audit_ok()


def test_three_workers_finish_every_other_claim_and_park_the_one_that_raises(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    claims = ["W-01", BAD, "W-03", "W-04"]
    server = serve(openai_server, monkeypatch, *claims)
    store = Store()
    assert {r.state for r in ingest(water_claims(tmp_path / "inbox", *claims), store)} == {"queued"}

    env = {**os.environ, "RAISING_REVIEW_AT": BAD, "CLAIMS_CREW_MAX_FAILURES": "2"}
    command = [sys.executable, "-m", "tests.support.raising_review", "work", "--until-empty"]
    with work_processes(command, env, 3, tmp_path / "worker") as workers:
        codes = [worker.wait(timeout=300) for worker in workers]
    logs = [p.read_text(errors="replace") for p in sorted(tmp_path.glob("worker-*.log"))]

    # Every worker ended as designed: 1 where a claim it reviewed failed, else 0; none died.
    for code, log in zip(codes, logs, strict=True):
        assert code == (1 if f"{BAD}.json" in log and "review_failed" in log else 0), log
        assert "Traceback" not in log, log
    assert 1 in codes
    # Every other claim decided once; the bad one tried twice in all (the limit), then parked.
    assert sorted(d.claim_id for d in store.decisions()) == ["W-01", "W-03", "W-04"]
    assert {c: len(store.attempts(c)) for c in claims} == {**dict.fromkeys(claims, 1), BAD: 2}
    assert asked(server)[BAD] == 2 * CALLS_PER_REVIEW, tries_said(store, BAD)
    assert item(store, BAD)["state"] == "failed"
    counts = store.queue_counts()
    assert (counts.pending, counts.failed) == (0, 1)
    assert audit_ok()

    # Ingesting the same file again leaves it parked; a person's requeue makes it pending.
    [again] = ingest([tmp_path / "inbox" / f"{BAD}.json"], store)
    assert again.state == "parked"
    assert requeue(BAD).exit_code == 0
    requeued = item(store, BAD)
    assert requeued["state"] == "pending" and requeued["failures"] == 0
    assert str(requeued["requeued_by"]).startswith("cli:")
    # Only a parked claim is re-queued.
    refused = requeue("W-01")
    assert refused.exit_code == 3 and "not parked" in refused.output + refused.stderr


@pytest.mark.parametrize(("raw", "most"), [("", 3), ("1", 1), ("0", None), ("3x", None)])
def test_the_failures_a_claim_may_have_come_from_the_environment(
    raw: str, most: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_MAX_FAILURES", raw)
    if most is None:
        with pytest.raises(ConfigError, match="CLAIMS_CREW_MAX_FAILURES"):
            Limits.from_environment()
    else:
        assert Limits.from_environment().max_failures == most
