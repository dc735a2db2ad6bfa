"""`claims-crew ingest INBOX` and `claims-crew work`, on SQLite and on PostgreSQL, over CrewAI's
own OpenAI client and the scripted server, whose log says which claim's agents were called.

The sample inbox ingested is worked to the end: every claim decided once, each agent asked as a
one-process run asks it, the audit chain intact; ingested again, nothing is queued and a worker
calls no model.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import select

from claims_crew.claim_files import inbox_files
from claims_crew.cli import main
from claims_crew.store import Store
from claims_crew.store import tables as t
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
from tests.support.store import water_loaded

pytestmark = pytest.mark.usefixtures("engine")


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_ingest_lists_each_file_and_fails_when_one_is_refused(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    water_loaded(inbox, "C-1")
    (inbox / "C-2.json").write_text('{"claim_id": "C-2"}', encoding="utf-8")
    result = cli("ingest", str(inbox))
    assert result.exit_code == 1
    assert "C-1.json" in result.output and "queued" in result.output
    assert "refused (invalid)" in result.output and "policy_id" in result.output
    assert "1 claim file(s) refused" in result.stderr
    assert Store().queue_counts().pending == 1


def test_ingest_refuses_a_changed_file_for_a_queued_claim_and_keeps_the_queued_one(
    tmp_path: Path,
) -> None:
    first = water_loaded(tmp_path / "first", "C-1")
    changed = water_loaded(tmp_path / "second", "C-1", amount=9999)
    assert cli("ingest", str(first.path.parent)).exit_code == 0
    result = cli("ingest", str(changed.path.parent))
    assert result.exit_code == 1
    assert "refused (duplicate_id)" in result.output
    assert "1 claim file(s) refused" in result.stderr
    store = Store()
    with store.read() as conn:
        queued = conn.execute(select(t.work_items.c.sha256)).scalars().all()
        kept = conn.execute(select(t.claim_files.c.sha256)).scalars().all()
    assert queued == kept == [first.sha256]  # the changed bytes are not even kept
    assert store.queue_counts().pending == 1
    # The same file again is still just already queued.
    again = cli("ingest", str(first.path.parent))
    assert again.exit_code == 0 and "already queued" in again.output


@pytest.mark.usefixtures("warm_index")
def test_an_ingested_inbox_is_worked_to_the_end_each_claim_decided_once(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = start(openai_server, monkeypatch)
    ingested = cli("ingest", str(INBOX))
    assert ingested.exit_code == 0, ingested.output
    assert ingested.output.count(" queued ") == len(CLAIM_IDS)
    assert len(server.exchanges) == 0  # ingest calls no model

    worked = cli("work", "--until-empty", "--concurrency", "2")

    assert worked.exit_code == 0, worked.output + worked.stderr
    store = Store()
    assert len(store.decisions()) == len(CLAIM_IDS)
    assert attempts(store) == dict.fromkeys(CLAIM_IDS, 1)
    assert calls(server) == expected_calls(CLAIM_IDS)
    for claim_file in inbox_files(INBOX):
        assert f"{claim_file.name}: reviewed in" in worked.output
    assert f"[{len(CLAIM_IDS)}/{len(CLAIM_IDS)}]" in worked.output
    counts = store.queue_counts()
    assert (counts.pending, counts.done) == (0, len(CLAIM_IDS))
    assert audit_ok()

    # The same inbox again: every claim is decided, nothing is queued, no model is called.
    before = len(server.exchanges)
    again = cli("ingest", str(INBOX))
    assert again.exit_code == 0
    assert again.output.count("already decided") == len(CLAIM_IDS)
    idle = cli("work", "--until-empty")
    assert idle.exit_code == 0 and "0 claim(s) pending" in idle.output
    assert len(server.exchanges) == before


@pytest.mark.usefixtures("warm_index")
def test_a_claim_decided_by_a_run_after_it_was_queued_calls_no_model(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = start(openai_server, monkeypatch)
    assert cli("ingest", str(INBOX)).exit_code == 0
    ran = cli("run", "--inbox", str(INBOX), "--concurrency", "2")
    assert ran.exit_code == 0, ran.output
    before = len(server.exchanges)

    worked = cli("work", "--until-empty", "--concurrency", "2")

    assert worked.exit_code == 0, worked.output
    assert len(server.exchanges) == before
    store = Store()
    assert attempts(store) == dict.fromkeys(CLAIM_IDS, 1)
    assert store.queue_counts().pending == 0


@pytest.mark.usefixtures("warm_index")
def test_a_run_ingests_its_inbox_then_works_it_leaving_nothing_for_a_worker(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = start(openai_server, monkeypatch)
    ran = cli("run", "--inbox", str(INBOX), "--concurrency", "2")
    assert ran.exit_code == 0, ran.output
    store = Store()
    # Ingested: each claim's file is whole in the store, attachments and all, and queued...
    for claim_file in inbox_files(INBOX):
        claim_id = claim_file.stem
        record = store.claim_record(claim_id)
        assert record is not None
        kept = store.loaded(claim_id, record.claim_sha256)
        assert kept is not None and kept.raw == claim_file.read_bytes()
    # ...then worked by the run itself: every item done, so a worker finds nothing.
    counts = store.queue_counts()
    assert (counts.pending, counts.done) == (0, len(CLAIM_IDS))
    before = len(server.exchanges)
    idle = cli("work", "--until-empty")
    assert idle.exit_code == 0 and "0 claim(s) pending" in idle.output
    assert len(server.exchanges) == before


@pytest.mark.usefixtures("warm_index")
def test_run_in_worker_processes_records_in_the_store_the_run_opened(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The workers open the parent's store by its URL: PostgreSQL, not a file named after it."""
    server = start(openai_server, monkeypatch)
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    ran = cli("run", "--inbox", str(INBOX), "--workers", "2", "--concurrency", "2")
    assert ran.exit_code == 0, ran.output + ran.stderr
    store = Store()
    assert len(store.decisions()) == len(CLAIM_IDS)
    assert calls(server) == expected_calls(CLAIM_IDS)
    assert list(workdir.iterdir()) == []  # no stray SQLite file in the working folder
