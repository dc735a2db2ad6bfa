"""`claims-crew run --workers N`: worker processes sharing one store, over CrewAI's own OpenAI
client and the scripted server, whose own log says which claim's agents were called how often.

Every claim is decided once, by one worker; a worker killed mid-batch loses nothing, the run
says so and fails, and the next run finishes the rest without sending a decided claim again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from claims_crew import worker_pool
from claims_crew.claim_files import inbox_files
from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.limits import rpm_share, workers_from_environment
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
    assert store.decision_count() == len(CLAIM_IDS)
    # Two processes shared the inbox, each a run of its own over its half.
    half = len(CLAIM_IDS) // 2
    assert sorted(runs_recorded(store)) == sorted(
        f"{n} claim file(s), concurrency 2" for n in (len(CLAIM_IDS) - half, half)
    )
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
def test_a_killed_worker_fails_the_run_and_the_next_run_finishes_its_claims(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = start(openai_server, monkeypatch)
    # One claim at a time each: the second worker has C-1043 and C-1045 done when it dies at
    # the start of C-1047's review, holding its lease; C-2001 it never reaches.
    second = CLAIM_IDS[1::2]
    killed_at, never = second[2], second[3:]
    monkeypatch.setattr(worker_pool, "WORKER_MODULE", "tests.support.killed_worker")
    monkeypatch.setenv("KILLED_WORKER_AT", killed_at)
    result = run("--workers", "2", "--concurrency", "1")

    assert result.exit_code == 1
    said = result.output
    assert "worker 2 of 2 (pid " in said and ") was killed by SIGKILL; " in said
    left = [killed_at, *never]
    names = ", ".join(p.name for p in inbox_files(INBOX) if p.stem in left)
    assert f"{len(left)} claim file(s) it had not finished are left for the next run: {names}" in (
        said
    )
    assert f"[{len(CLAIM_IDS) - len(left)}/{len(CLAIM_IDS)}]" in said
    store = Store()
    decided = [c for c in CLAIM_IDS if c not in left]
    assert attempts(store) == {c: int(c in decided) for c in CLAIM_IDS}
    assert store.decision_count() == len(decided)
    assert calls(server) == expected_calls(decided)
    assert audit_ok()

    # The next run takes the dead worker's lease at once and sends only what was left.
    monkeypatch.setattr(worker_pool, "WORKER_MODULE", "claims_crew.worker")
    before = len(server.exchanges)
    again = run("--workers", "2", "--concurrency", "1")
    assert again.exit_code == 0, again.output + again.stderr
    assert f"{len(left)} to review" in again.output
    assert calls(server, before) == expected_calls(left)
    assert attempts(store) == dict.fromkeys(CLAIM_IDS, 1)
    assert store.decision_count() == len(CLAIM_IDS)
    assert audit_ok()


def test_claim_files_are_dealt_out_in_turn() -> None:
    files = [Path(f"C-{i}.json") for i in range(5)]
    assert worker_pool.shares(files, 2) == [files[0::2], files[1::2]]
    assert worker_pool.shares(files[:1], 3) == [files[:1]]  # no worker without a claim


@pytest.mark.parametrize(("cap", "workers", "share"), [(None, 2, None), (61, 2, 30), (3, 4, 1)])
def test_each_worker_gets_its_share_of_the_rate_cap(
    cap: int | None, workers: int, share: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert rpm_share(cap, workers) == share
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "" if cap is None else str(cap))
    given = worker_pool.worker_environment(workers).get("CLAIMS_CREW_MAX_RPM") or None
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
