"""A provider refusal that no retry gets past (a bad key, a missing permission, an unknown
model) stops the batch after the first claim that meets it: that claim fails with a typed code,
no further claim is started or sent to the provider, the rest stay queued, and a run after the
fix reviews them all. For a run (`run_batch`, `claims-crew run`) and a queue worker.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.batch import run_batch
from claims_crew.run.worker import Worker
from claims_crew.store import Store
from tests.support.openai_server import ChatRequest, Reply, StartServer, Status
from tests.support.provider import (
    CrewScript,
    claim_of,
    point_model_at,
    provider_settings,
    water_claims,
    water_replies,
)

IDS = ["S-1", "S-2", "S-3"]


class Switch:
    """Refuses every request with `status` until `fixed`, then answers as the script does."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.fixed = False
        self.script = CrewScript()
        for claim_id in IDS:
            water_replies(self.script, claim_id)

    def __call__(self, request: ChatRequest) -> Reply:
        return self.script(request) if self.fixed else Status(self.status, "refused")


@pytest.mark.parametrize(
    ("status", "code"),
    [(401, "invalid_key"), (403, "permission_denied"), (404, "model_not_found")],
)
def test_a_refusal_stops_the_run_after_its_first_claim_and_leaves_the_rest_queued(
    status: int,
    code: str,
    tmp_path: Path,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    switch = Switch(status)
    server = openai_server(switch)
    point_model_at(server, monkeypatch)
    store = Store(tmp_path / "claims.sqlite")
    paths = water_claims(tmp_path / "inbox", *IDS)

    first, *rest = run_batch(paths, provider_settings(PolicyLibrary(), store), 1)

    assert first.record is not None and first.record.error is not None
    assert first.record.error.code == code
    assert [(i.record, i.error) for i in rest] == [
        (None, "not started: the batch stopped early")
    ] * 2
    # Only the first claim reached the provider; the others are queued, not failed.
    assert {claim_of(r) for r in server.requests} == {"S-1"}
    assert store.queue_counts().pending == 2
    assert store.claim_record("S-2") is None

    switch.fixed = True
    again = run_batch(paths, provider_settings(PolicyLibrary(), store), 1)
    assert [i.record.status for i in again if i.record] == ["reviewed"] * 3
    assert store.queue_counts().pending == 0


def run_refused(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, *options: str
) -> str:
    """`claims-crew run` on three claims against a provider that answers 401; it must exit 1.
    What it printed, on one line."""
    point_model_at(openai_server(Switch(401)), monkeypatch)
    inbox = tmp_path / "inbox"
    water_claims(inbox, *IDS)
    command = ["run", "--inbox", str(inbox), "--concurrency", "1", *options]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 1
    return " ".join((result.output + result.stderr).split())


def test_claims_crew_run_says_it_stopped_and_exits_non_zero(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = run_refused(tmp_path, openai_server, monkeypatch)
    assert "stopped early: S-1 failed with invalid_key" in output
    assert "2 claim(s) left queued for the next run" in output


def test_a_worker_stops_taking_claims_after_a_refusal(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = openai_server(Switch(401))
    point_model_at(server, monkeypatch)
    store = Store(tmp_path / "claims.sqlite")
    from claims_crew.run.ingest import ingest

    ingest(water_claims(tmp_path / "inbox", *IDS), store)
    settings = provider_settings(PolicyLibrary(), store)
    (item,) = Worker(settings, 1, until_empty=True, poll_s=0.05).run()
    assert item.record is not None and item.record.error is not None
    assert item.record.error.code == "invalid_key"
    assert len({claim_of(r) for r in server.requests}) == 1
    assert store.queue_counts().pending == 2


@pytest.mark.usefixtures("warm_index")
def test_claims_crew_run_with_workers_says_a_worker_stopped_early(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = run_refused(tmp_path, openai_server, monkeypatch, "--workers", "2")
    # Each worker stops after its first claim: two at most are tried, the rest stay queued.
    assert re.search(r"stopped early: S-\d failed with invalid_key", output), output
    left = Store().queue_counts().pending
    assert left >= 1 and f"{left} claim(s) left queued for the next run" in output
    assert "no worker finished" not in output
