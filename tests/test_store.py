"""The decision store: migrations, whole-or-nothing writes, one decision per claim, reviews.

Every test runs on SQLite and on PostgreSQL (the `engine` fixture), but those about the SQLite
file itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select, table

from claims_crew.desk import DeskRules
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import RunError
from claims_crew.store import (
    HEAD,
    AlreadyDecided,
    NotFound,
    Store,
    StoreError,
    audit,
    upgrade,
)
from claims_crew.store.schema import revisions
from claims_crew.store.tables import agent_outputs, audit_log, metadata, runs
from tests.support import killed_run
from tests.support.paths import ROOT
from tests.support.store import accepted_answers, record_for, sqlite_only, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

CLAIM_TABLES = (
    "attempts",
    "agent_outputs",
    "tool_calls",
    "resolutions",
    "decisions",
    "escalations",
    "audit_log",
)


def _count(store: Store, name: str) -> int:
    with store.read() as conn:
        return int(conn.execute(select(func.count()).select_from(table(name))).scalar_one())


@sqlite_only  # the SQLite file's own settings (WAL, synchronous, busy timeout)
def test_migrations_are_applied_once_and_the_file_is_set_up(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    with store.read() as conn:
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == HEAD
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() > 0
    assert revisions()[-1] == HEAD  # HEAD names the newest migration script
    assert upgrade(store.engine) == []  # opening again changes nothing
    Store(store.path)
    assert _count(store, "alembic_version") == 1


@sqlite_only  # where the SQLite file goes when no database is named
def test_default_location_is_in_claims_crew_home(tmp_path: Path) -> None:
    assert Store().path == tmp_path / "home" / "claims.sqlite"


def test_a_record_reads_back_as_written(tmp_path: Path, sample_library: PolicyLibrary) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    record = record_for(loaded, sample_library)
    run = store.start_run("test")
    done = store.record(record, run, loaded)
    assert done.decided and done.outcome == "ESCALATED" and done.escalation_id is not None
    assert store.claim_record("C-1042") == record
    assert store.claim_file("C-1042") == loaded.claim
    escalation = store.escalation("C-1042")
    assert escalation.amount == "4200" and escalation.currency == "GBP"
    assert escalation.question == "damage_start_date: When did the damage start?"
    assert store.escalation(str(escalation.id)) == escalation
    with store.read() as conn:
        tasks = dict(conn.execute(select(agent_outputs.c.task, agent_outputs.c.field)).all())
    assert tasks == {"intake_task": "intake", "policy_task": "policy", "fraud_task": "fraud"}


def test_a_failure_inside_the_write_leaves_nothing_of_the_claim(
    tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    record = record_for(loaded, sample_library)

    def crash(*_args: object, **_kwargs: object) -> None:
        raise OSError("disk gone")  # the last write of the claim's transaction

    monkeypatch.setattr(audit, "append", crash)
    with pytest.raises(OSError):
        store.record(record, None, loaded)
    assert {t: _count(store, t) for t in CLAIM_TABLES} == dict.fromkeys(CLAIM_TABLES, 0)
    assert store.triage(loaded) == "todo"  # the next run picks it up
    monkeypatch.undo()
    assert store.record(record, None, loaded).decided
    assert store.verify_audit().ok


def test_a_claim_gets_one_decision_however_often_it_is_recorded(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    record = record_for(loaded, sample_library)
    assert store.record(record, None, loaded).decided
    # A second process that reviewed the same claim meanwhile: its work is kept, not decided.
    again = store.record(record, None, loaded)
    assert not again.decided and again.outcome == "ESCALATED"
    assert _count(store, "attempts") == 2
    assert _count(store, "decisions") == _count(store, "audit_log") == 1
    assert _count(store, "escalations") == 1


def test_writers_racing_on_one_claim_leave_one_decision(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    """Each writer looks for a decision under the store's write lock: one decides, the others
    keep their attempt and fail nothing (no duplicate key, no second audit entry)."""
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    record = record_for(loaded, sample_library)
    start = threading.Barrier(6)
    done: list[bool] = []
    failed: list[BaseException] = []

    def write() -> None:
        start.wait()
        try:
            done.append(store.record(record, None, loaded).decided)
        except Exception as exc:
            failed.append(exc)

    threads = [threading.Thread(target=write) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failed == [] and sorted(done) == [False] * 5 + [True]
    assert _count(store, "attempts") == 6
    assert _count(store, "decisions") == _count(store, "audit_log") == 1
    assert _count(store, "escalations") == _count(store, "validations") == 1
    assert store.verify_audit() == audit.Verdict(True, 1)


def test_a_failed_claim_stays_to_do(tmp_path: Path, sample_library: PolicyLibrary) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    failed = record_for(loaded, sample_library).model_copy(
        update={
            "status": "failed",
            "error": RunError(code="crew_failed", message="boom"),
            "resolution": None,
            "intake": None,
            "policy": None,
            "fraud": None,
            "raw": {},
            "ledger": [],
        }
    )
    assert not store.record(failed, None, loaded).decided
    assert store.triage(loaded) == "todo"
    assert store.claim_record("C-1042") == failed
    assert _count(store, "audit_log") == 0


def test_a_claim_file_changed_after_its_decision_is_flagged_not_redecided(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    assert store.triage(loaded) == "todo"
    store.record(record_for(loaded, sample_library), None, loaded)
    assert store.triage(loaded) == "decided"
    edited = water_loaded(tmp_path / "inbox", amount=9000)
    assert store.triage(edited) == "changed_after_decision"
    assert store.triage(edited) == "changed_after_decision"  # flagged once
    [changed] = store.changed_after_decision()
    assert changed.claim_id == "C-1042" and changed.decided_sha256 != changed.sha256
    assert store.claim_file("C-1042") == loaded.claim  # the version that was decided
    assert _count(store, "decisions") == 1


def test_a_human_decision_is_a_new_entry_linked_to_the_escalation(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    store.record(record_for(loaded, sample_library), None, loaded)
    store.add_reviewer("ana")
    with pytest.raises(StoreError, match="reason is required"):
        store.decide("C-1042", "covered", "  ", "ana", rules=DeskRules())
    with pytest.raises(StoreError, match="decision must be one of"):
        store.decide("C-1042", "approve", "fine", "ana", rules=DeskRules())
    with pytest.raises(NotFound, match="no reviewer named 'bo'"):
        store.decide("C-1042", "covered", "fine", "bo", rules=DeskRules())
    review = store.decide(
        "C-1042", "covered", "The plumber dates the leak to the day.", "ana", rules=DeskRules()
    )
    escalated, human = store.audit_entries("C-1042")
    assert human.kind == "human" and human.actor == "human:ana" and human.answer == "covered"
    assert human.overrides == escalated.seq == 1 and review.audit_seq == human.seq == 2
    with store.read() as conn:
        first_hash = conn.execute(select(audit_log.c.hash).where(audit_log.c.seq == 1)).scalar()
    assert human.overrides_hash == first_hash
    assert escalated.kind == "escalated" and escalated.answer is None  # nothing was edited
    assert store.open_count() == 0
    [decision] = store.decisions()
    assert decision.review == review and review.decision == "covered" and decision.answer is None
    assert decision.resolution.outcome == "ESCALATED"
    assert store.verify_audit().ok


def test_the_second_reviewer_is_told_who_decided(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    store.record(record_for(loaded, sample_library), None, loaded)
    store.add_reviewer("ana")
    store.add_reviewer("bo")
    seen = store.escalation("C-1042").version  # both opened the page
    store.decide(
        "C-1042", "covered", "dated by the plumber", "ana", expected_version=seen, rules=DeskRules()
    )
    with pytest.raises(AlreadyDecided) as caught:
        store.decide(
            "C-1042", "not_covered", "seepage", "bo", expected_version=seen, rules=DeskRules()
        )
    assert caught.value.decided_by == "ana" and "by ana" in str(caught.value)
    with pytest.raises(AlreadyDecided):
        store.decide("C-1042", "not_covered", "seepage", "bo", rules=DeskRules())
    assert len(store.reviews()) == 1


def test_racing_reviewers_one_wins(tmp_path: Path, sample_library: PolicyLibrary) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    store.record(record_for(loaded, sample_library), None, loaded)
    names = [f"r{i}" for i in range(6)]
    for name in names:
        store.add_reviewer(name)
    version = store.escalation("C-1042").version
    start = threading.Barrier(len(names))
    outcomes: dict[str, str] = {}

    def decide(name: str) -> None:
        start.wait()
        try:
            store.decide(
                "C-1042", "covered", "race", name, expected_version=version, rules=DeskRules()
            )
            outcomes[name] = "won"
        except AlreadyDecided as exc:
            outcomes[name] = f"lost to {exc.decided_by}"

    threads = [threading.Thread(target=decide, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [n for n, o in outcomes.items() if o == "won"]
    assert len(winners) == 1
    assert all(o == f"lost to {winners[0]}" for n, o in outcomes.items() if n != winners[0])
    assert len(store.reviews()) == 1 and store.verify_audit().ok


def test_threads_recording_claims_keep_one_chain(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    loaded = [water_loaded(tmp_path / "inbox", f"C-{i:03}") for i in range(12)]
    records = [record_for(item, sample_library) for item in loaded]
    start = threading.Barrier(4)

    def work(part: int) -> None:
        start.wait()
        for item, record in list(zip(loaded, records, strict=True))[part::4]:
            store.record(record, None, item)

    threads = [threading.Thread(target=work, args=(p,)) for p in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    verdict = store.verify_audit()
    assert verdict.ok and verdict.entries == 12 and len(store.decisions()) == 12


def test_accepted_claims_are_decided_without_an_escalation(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = Store()
    loaded = water_loaded(tmp_path / "inbox")
    done = store.record(record_for(loaded, sample_library, **accepted_answers()), None, loaded)
    assert done.outcome == "ACCEPTED" and done.escalation_id is None
    [entry] = store.audit_entries("C-1042")
    assert entry.kind == "auto" and entry.actor == "auto" and entry.answer == "covered"
    assert entry.evidence == ["4.2(b)"] and entry.rule == "agree"
    assert store.open_count() == 0
    with pytest.raises(NotFound):
        store.escalation("C-1042")


def test_reviewer_tokens_are_kept_only_as_hashes(tmp_path: Path) -> None:
    store = Store()
    token = store.add_reviewer("ana")
    assert store.sign_in(token, "test") == "ana"
    assert store.sign_in(token + "x", "test") is None
    with pytest.raises(StoreError, match="already exists"):
        store.add_reviewer("ana")
    with pytest.raises(StoreError):
        store.add_reviewer("human:ana")
    with store.read() as conn:
        for stored in metadata.sorted_tables:
            for row in conn.execute(select(stored)):
                assert token not in repr(tuple(row)), stored.name
    if store.path is not None:  # nor anywhere in the file, its journal or its WAL
        for path in store.path.parent.glob("claims.sqlite*"):
            assert token.encode() not in path.read_bytes()
    session = store.open_session("ana")
    found = store.session(session)
    assert found is not None and found.reviewer == "ana" and len(found.csrf) > 20
    store.close_session(session)
    assert store.session(session) is None


def _calls(log: Path) -> Counter[str]:
    if not log.exists():
        return Counter()
    return Counter(line.split()[0] for line in log.read_text(encoding="utf-8").splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("kill_in", ["model", "write"])
def test_a_killed_run_then_a_rerun_leaves_one_decision_per_claim(
    tmp_path: Path, kill_in: str
) -> None:
    inbox = tmp_path / "inbox"
    claims = [f"K-{i:03}" for i in range(1, 5)]
    for claim_id in claims:
        water_loaded(inbox, claim_id)
    first_log = tmp_path / "first.log"
    command = [sys.executable, "-m", "tests.support.killed_run", str(inbox), str(first_log)]
    child = subprocess.run(
        [*command, "--kill-at", "K-003", "--kill-in", kill_in],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    store = Store()
    assert [d.claim_id for d in store.decisions()] == ["K-001", "K-002"]
    assert store.attempts("K-003") == []  # killed mid-claim: nothing of it was kept
    assert store.verify_audit().ok
    with store.read() as conn:
        [(finished,)] = conn.execute(select(runs.c.finished_at)).all()
    assert finished is None  # the run never finished
    first = _calls(first_log)
    # Intake twice (its facts, then the conflict's targeted question), policy twice, fraud.
    assert first["K-001"] == first["K-002"] == 5
    assert "K-004" not in first

    second_log = tmp_path / "second.log"
    items = killed_run.run(inbox, second_log)
    second = _calls(second_log)
    assert sorted(second) == ["K-003", "K-004"]  # decided claims were not sent again
    assert all(item.ok for item in items)
    decisions = store.decisions()
    assert [d.claim_id for d in decisions] == claims
    assert all(d.outcome == "ESCALATED" for d in decisions)
    with store.read() as conn:
        per_claim = dict(
            conn.execute(
                select(audit_log.c.claim_id, func.count()).group_by(audit_log.c.claim_id)
            ).all()
        )
    assert per_claim == dict.fromkeys(claims, 1)
    assert store.verify_audit() == audit.Verdict(True, 4)
    assert store.open_count() == 4

    third_log = tmp_path / "third.log"
    assert killed_run.run(inbox, third_log) == []
    assert not third_log.exists()
