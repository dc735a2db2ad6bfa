"""The audit chain: its hashes, and random tampering in the database and in an export."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, text

from claims_crew.desk import DeskRules
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store, audit, audit_key
from tests.support.paths import ROOT
from tests.support.store import accepted_answers, record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

TRIALS = 300


class Clock:
    """A clock the test moves, so `--since` has something to cut."""

    def __init__(self) -> None:
        self.now = datetime(2025, 11, 5, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


@pytest.fixture
def chain(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """Ten decided claims (every other one escalated) and three human decisions: 13 entries."""
    return _decide(Store(clock=Clock()), tmp_path, sample_library)


def _decide(store: Store, tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    store.add_reviewer("ana")
    for i in range(10):
        loaded = water_loaded(tmp_path / "inbox", f"C-{i:03}")
        answers = accepted_answers() if i % 2 else {}
        store.record(record_for(loaded, sample_library, **answers), None, loaded)
    for i in (0, 4, 8):
        store.decide(f"C-{i:03}", "covered", f"reason {i}", "ana", rules=DeskRules())
    return store


def _rows(conn: Connection) -> list[tuple[int, str, str]]:
    rows = conn.execute(text("SELECT seq, body, hash FROM audit_log ORDER BY seq"))
    return [(int(r.seq), r.body, r.hash) for r in rows]


def test_entries_are_hashed_over_canonical_json_and_chained(chain: Store) -> None:
    with chain.read() as conn:
        rows = _rows(conn)
        assert audit.head(conn) == (13, rows[-1][2])
    prev = audit.GENESIS
    for seq, body, digest in rows:
        data = json.loads(body)
        assert data["seq"] == seq and data["prev"] == prev
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert body == text and hashlib.sha256(text.encode()).hexdigest() == digest
        prev = digest
    entry = audit.AuditEntry.model_validate_json(rows[0][1])
    assert entry.claim_id == "C-000" and entry.policy_sha256 and entry.config_sha256
    assert entry.models["policy"] == "scripted-policy" and entry.at.endswith("Z")
    assert chain.verify_audit() == audit.Verdict(True, 13)


def _mutate(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool) or value is None:
        return "x" if value is None else not value
    if isinstance(value, int):
        return value + rng.choice((-1, 1))
    if isinstance(value, str):
        return value + "x" if not value or rng.random() < 0.5 else value[:-1]
    if isinstance(value, list):
        return [*value, "x"] if not value or rng.random() < 0.5 else value[:-1]
    return {**value, "x": "y"}


def _edit_body(body: str, rng: random.Random) -> str:
    data = json.loads(body)
    key = rng.choice(sorted(data))
    data[key] = _mutate(data[key], rng)
    return audit.canonical(data)


SET_BODY_AND_HASH = text("UPDATE audit_log SET body = :body, hash = :hash WHERE seq = :seq")
DELETE_ENTRY = text("DELETE FROM audit_log WHERE seq = :seq")


def _tamper_db(conn: Connection, rng: random.Random) -> tuple[str, int]:
    """Change the stored chain one way; returns the way and the first entry it breaks."""
    rows = _rows(conn)
    n = len(rows)
    seq, body, _ = rows[rng.randrange(n)]
    how = rng.choice(["edit", "edit_rehash", "hash", "delete", "swap", "renumber", "drop_tail"])
    if how == "edit":
        conn.execute(
            text("UPDATE audit_log SET body = :body WHERE seq = :seq"),
            {"body": _edit_body(body, rng), "seq": seq},
        )
        return how, seq
    if how == "edit_rehash":  # content and its own hash changed together
        new = _edit_body(body, rng)
        data = json.loads(new)
        conn.execute(SET_BODY_AND_HASH, {"body": new, "hash": audit.entry_hash(data), "seq": seq})
        # Whatever else: the entry's signature is over its old hash, so the entry itself fails
        # (before entries were signed, a consistent edit showed only at the next entry's link).
        return how, seq
    if how == "hash":
        conn.execute(
            text("UPDATE audit_log SET hash = :hash WHERE seq = :seq"),
            {"hash": "0" * 64, "seq": seq},
        )
        return how, seq
    if how == "delete":
        conn.execute(DELETE_ENTRY, {"seq": seq})
        return how, seq
    if how == "drop_tail":
        conn.execute(DELETE_ENTRY, {"seq": n})
        return how, n
    other = rng.choice([r for r in rows if r[0] != seq])
    first = min(seq, other[0])
    if how == "swap":  # two entries change places
        for (s, _, _), (_, b, h) in ((rows[seq - 1], other), (other, rows[seq - 1])):
            conn.execute(SET_BODY_AND_HASH, {"body": b, "hash": h, "seq": s})
        return how, first
    # renumber: the rows keep their contents but trade positions
    for old, new in ((seq, -1), (other[0], seq), (-1, other[0])):
        conn.execute(
            text("UPDATE audit_log SET seq = :new WHERE seq = :old"), {"new": new, "old": old}
        )
    return how, first


def test_random_tampering_in_the_database_is_detected(chain: Store) -> None:
    rng = random.Random(20251105)
    seen = set()
    with chain.engine.connect() as conn:
        for _ in range(TRIALS):
            with conn.begin() as transaction:
                how, first_bad = _tamper_db(conn, rng)
                verdict = audit.verify(conn, chain.audit_key())
                transaction.rollback()
            assert not verdict.ok, how
            assert verdict.first_bad == first_bad, (how, verdict)
            seen.add(how)
    with chain.read() as conn:
        assert audit.verify(conn, chain.audit_key()).ok  # every change was rolled back
    assert len(seen) == 7


def test_verify_names_the_first_broken_entry(chain: Store) -> None:
    with chain.write() as conn:
        conn.execute(text("UPDATE audit_log SET body = replace(body, 'reason 4', 'reason 5')"))
    verdict = chain.verify_audit()
    assert verdict.first_bad == 12 and not verdict.ok and verdict.entries == 11
    assert verdict.problem == "entry 12 was altered: its content no longer matches its hash"


def _tamper_export(lines: list[str], rng: random.Random) -> tuple[str, list[str]]:
    lines = list(lines)
    i = rng.randrange(len(lines))
    how = rng.choice(["edit", "edit_hash", "unsign", "delete", "swap", "duplicate"])
    if how == "delete":
        del lines[i]
    elif how == "duplicate":
        lines.insert(i, lines[i])
    elif how == "swap":
        j = rng.choice([k for k in range(len(lines)) if k != i])
        lines[i], lines[j] = lines[j], lines[i]
    else:
        item = json.loads(lines[i])
        if "audit_export" in item:
            header = item["audit_export"]
            key = rng.choice(["entries", "first_seq", "last_seq", "last_hash"])
            header[key] = _mutate(header[key], rng)
        elif how == "edit":
            item["entry"] = json.loads(_edit_body(audit.canonical(item["entry"]), rng))
        elif how == "unsign":
            item["signature"] = rng.choice([None, _mutate(item["signature"], rng)])
        else:
            item["hash"] = _mutate(item["hash"], rng)
        lines[i] = audit.canonical(item)
    return how, lines


def test_random_tampering_in_an_export_is_detected(chain: Store) -> None:
    lines = chain.export_audit()
    key = chain.audit_key()
    assert len(lines) == 14 and audit.verify_export(lines, key) == audit.Verdict(True, 13)
    rng = random.Random(7)
    for _ in range(TRIALS):
        how, changed = _tamper_export(lines, rng)
        assert not audit.verify_export(changed, key).ok, (how, changed)


def test_an_export_since_a_time_verifies_on_its_own(chain: Store) -> None:
    with chain.read() as conn:
        sixth = json.loads(_rows(conn)[5][1])["at"]
    since = datetime.strptime(sixth, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    lines = chain.export_audit(since)
    header = json.loads(lines[0])["audit_export"]
    assert header["entries"] == 8 and header["first_seq"] == 6
    key = chain.audit_key()
    assert audit.verify_export(lines, key) == audit.Verdict(True, 8)
    assert not audit.verify_export([lines[0], *lines[2:]], key).ok
    assert not audit.verify_export(lines[:-1], key).ok


def test_both_engines_hash_the_same_entries_the_same(
    chain: Store,
    engine: str,
    tmp_path: Path,
    sample_library: PolicyLibrary,
    postgres_url: str,
) -> None:
    """The same decisions, made on SQLite and on PostgreSQL, give byte-identical entries,
    exports and checkpoints, and each engine's checkpoint verifies the other's chain."""
    other = (
        Store(tmp_path / "other.sqlite", clock=Clock())
        if engine == "postgresql"
        else Store(url=postgres_url, clock=Clock())
    )
    assert other.postgres != chain.postgres
    _decide(other, tmp_path / "other", sample_library)
    key = audit_key.load_key()  # the one both stores' entries are signed with
    signed = {}
    for store in (chain, other):
        verdict, signed[store.postgres] = store.audit_checkpoint(key)
        assert verdict == audit.Verdict(True, 13)
    assert signed[True] == signed[False]
    for store in (chain, other):
        assert store.verify_audit(signed[not store.postgres], key) == audit.Verdict(True, 13)
    exports = [store.export_audit() for store in (chain, other)]
    assert exports[0] == exports[1] and len(exports[0]) == 14
    with chain.read() as conn, other.read() as other_conn:
        assert _rows(conn) == _rows(other_conn)


def test_an_empty_chain_verifies(tmp_path: Path) -> None:
    store = Store()
    assert store.verify_audit() == audit.Verdict(True, 0)
    assert audit.verify_export(store.export_audit(), None) == audit.Verdict(True, 0)
    assert not audit.verify_export([], None).ok


WRITERS = 8
APPENDS = 15


def entry_fields(claim_id: str, at: str) -> dict[str, Any]:
    """An automatic acceptance, as plain as an entry gets: the chain is what is under test."""
    return {
        "kind": "auto",
        "claim_id": claim_id,
        "claim_sha256": "0" * 64,
        "policy_sha256": None,
        "config_sha256": None,
        "models": {"policy": "scripted-policy"},
        "outcome": "ACCEPTED",
        "answer": "covered",
        "rule": "agree",
        "reason_codes": [],
        "evidence": [],
        "actor": "auto",
        "reason": None,
        "overrides": None,
        "overrides_hash": None,
        "at": at,
    }


def _assert_one_chain(store: Store, claim_ids: list[list[str]]) -> None:
    """One unbroken chain holding every writer's entries once each, numbered 1…n without a gap
    or a repeat, each writer's entries in the order it appended them."""
    total = sum(len(ids) for ids in claim_ids)
    with store.read() as conn:
        assert audit.verify(conn, store.audit_key()) == audit.Verdict(True, total)
        rows = conn.execute(text("SELECT seq, claim_id FROM audit_log ORDER BY seq")).all()
        last_hash = _rows(conn)[-1][2]
        assert audit.head(conn) == (total, last_hash)
    assert [int(r.seq) for r in rows] == list(range(1, total + 1))
    chained = [r.claim_id for r in rows]
    assert sorted(chained) == sorted(c for ids in claim_ids for c in ids)
    for ids in claim_ids:
        assert [c for c in chained if c in set(ids)] == ids


@pytest.mark.slow
@pytest.mark.parametrize("exclusive", [True, False], ids=["write-lock", "head-row-lock-only"])
def test_threads_appending_at_once_leave_one_chain(exclusive: bool) -> None:
    """Writers append from an empty chain on, all at once. With the store's write lock they
    queue on it; without it (exclusive=False: PostgreSQL's row locks only, while SQLite locks
    the file whatever is asked) the head row's lock alone must keep them in line."""
    store = Store()
    key = store.audit_key()
    start = threading.Barrier(WRITERS)
    errors: list[BaseException] = []
    claim_ids = [[f"C-{n}-{i:03}" for i in range(APPENDS)] for n in range(WRITERS)]

    def writer(ids: list[str]) -> None:
        try:
            start.wait()
            for claim_id in ids:
                with store.write(exclusive=exclusive) as conn:
                    audit.append(conn, key, **entry_fields(claim_id, store.now()))
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(ids,)) for ids in claim_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    _assert_one_chain(store, claim_ids)


# A writer process: the entry's fields as JSON, then the claim ids to append, one by one.
CHILD = """
import json, sys
from claims_crew.store import Store, audit, audit_key
fields = json.loads(sys.argv[1])
store = Store()
key = store.audit_key()
for claim_id in sys.argv[2:]:
    with store.write() as conn:
        audit.append(conn, key, **{**fields, "claim_id": claim_id, "at": store.now()})
"""


@pytest.mark.slow
def test_processes_appending_at_once_leave_one_chain() -> None:
    """Two processes on the same store (the same file, or the same PostgreSQL database by
    CLAIMS_CREW_DATABASE_URL, which they inherit) append together."""
    store = Store()  # made, and migrated, before the children race to open it
    store.audit_key()  # and the key file, which they sign with
    claim_ids = [[f"P{n}-{i:03}" for i in range(40)] for n in range(2)]
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, json.dumps(entry_fields("", "")), *ids],
            cwd=ROOT,
            stderr=subprocess.PIPE,
        )
        for ids in claim_ids
    ]
    for child in children:
        _, stderr = child.communicate(timeout=120)
        assert child.returncode == 0, stderr.decode()
    _assert_one_chain(store, claim_ids)


def test_an_append_outside_a_write_transaction_is_refused() -> None:
    store = Store()
    with store.engine.connect() as conn, pytest.raises(RuntimeError, match="write transaction"):
        audit.append(conn, store.audit_key(), **entry_fields("C-1", store.now()))
    with store.read() as conn:
        assert audit.head(conn) == (0, audit.GENESIS)
