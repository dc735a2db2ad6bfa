"""`claims-crew run --workers N`: queue worker processes sharing one store, over CrewAI's own
OpenAI client and the scripted server, whose own log says which claim's agents were called how
often.

Every claim is decided once, by one worker; a worker killed mid-batch loses nothing: the other
worker takes the claim it held, the run says so and fails, and the next run has nothing to send.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from claims_crew.claim_files import inbox_files
from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.run import processes
from claims_crew.settings import rpm_share, workers_from_environment
from claims_crew.store import Store
from tests.support.openai_server import StartServer
from tests.support.sample_inbox import (
    CLAIM_IDS,
    INBOX,
    attempts,
    audit_ok,
    calls,
    expected_calls,
    start,
)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["run", "--inbox", str(INBOX), *args])


def runs_recorded(store: Store) -> list[str]:
    with sqlite3.connect(store.path) as conn:
        return [note for (note,) in conn.execute("SELECT note FROM runs ORDER BY id")]


@pytest.mark.usefixtures("warm_index")
def test_two_workers_decide_every_sample_claim_once(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = start(openai_server, monkeypatch)
    result = run("--workers", "2", "--concurrency", "2")

    assert result.exit_code == 0, result.output + result.stderr
    store = Store()
    assert attempts(store) == dict.fromkeys(CLAIM_IDS, 1)
    assert len(store.decisions()) == len(CLAIM_IDS)
    # Two queue workers took the claims, each recorded as a run of its own.
    notes = runs_recorded(store)
    assert len(notes) == 2 and all(re.fullmatch(r"worker .+:\d+, concurrency 2", n) for n in notes)
    # No claim's agent was asked twice, and the adjudicator only about the dispute.
    assert calls(server) == expected_calls(CLAIM_IDS)
    # The parent showed every claim finish, as the workers reported them.
    for claim_file in inbox_files(INBOX):
        assert f"{claim_file.name}: reviewed in" in result.output
    assert f"[{len(CLAIM_IDS)}/{len(CLAIM_IDS)}]" in result.output
    assert audit_ok()
    # Decided: a second run sends nothing to the model.
    before = len(server.exchanges)
    again = run("--workers", "2")
    assert again.exit_code == 0 and "0 to review" in again.output
    assert len(server.exchanges) == before


@pytest.mark.usefixtures("warm_index")
def test_a_killed_worker_fails_the_run_and_another_worker_finishes_its_claim(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = start(openai_server, monkeypatch)
    # Whichever worker begins C-1047's review first dies there, holding its leases.
    killed_at = "C-1047"
    monkeypatch.setattr(processes, "WORKER_MODULE", "tests.support.killed_worker")
    monkeypatch.setenv("KILLED_WORKER_AT", killed_at)
    monkeypatch.setenv("KILLED_WORKER_MARK", str(tmp_path / "killed"))
    result = run("--workers", "2", "--concurrency", "1")

    assert result.exit_code == 1
    said = result.output
    assert re.search(
        rf"worker [12] of 2 \(pid \d+\) was killed by SIGKILL while reviewing {killed_at}.json",
        said,
    ), said
    # The dead worker's claim came free at once, and the other worker decided it.
    assert f"[{len(CLAIM_IDS)}/{len(CLAIM_IDS)}]" in said
    assert "left for the next run" not in said
    store = Store()
    assert attempts(store) == dict.fromkeys(CLAIM_IDS, 1)
    assert len(store.decisions()) == len(CLAIM_IDS)
    assert calls(server) == expected_calls(CLAIM_IDS)
    assert audit_ok()

    # Nothing is left: the next run sends nothing.
    monkeypatch.setattr(processes, "WORKER_MODULE", "claims_crew.run.work_process")
    before = len(server.exchanges)
    again = run("--workers", "2", "--concurrency", "1")
    assert again.exit_code == 0, again.output + again.stderr
    assert "0 to review" in again.output
    assert len(server.exchanges) == before


@pytest.mark.parametrize(("cap", "workers", "share"), [(None, 2, None), (61, 2, 30), (3, 4, 1)])
def test_each_worker_gets_its_share_of_the_rate_cap(
    cap: int | None, workers: int, share: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert rpm_share(cap, workers) == share
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "" if cap is None else str(cap))
    given = processes.worker_environment(workers).get("CLAIMS_CREW_MAX_RPM") or None
    assert given == (None if share is None else str(share))


@pytest.mark.parametrize(("raw", "workers"), [("", 1), ("3", 3), ("0", None), ("two", None)])
def test_workers_come_from_the_environment(
    raw: str, workers: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_WORKERS", raw)
    if workers is None:
        with pytest.raises(ConfigError, match="CLAIMS_CREW_WORKERS"):
            workers_from_environment()
    else:
        assert workers_from_environment() == workers
