"""The audit chain: its hashes, and random tampering in the database and in an export."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store, audit
from tests.store_helpers import accepted_answers, record_for, water_loaded

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
    store = Store(clock=Clock())
    store.add_reviewer("ana")
    for i in range(10):
        loaded = water_loaded(tmp_path / "inbox", f"C-{i:03}")
        answers = accepted_answers() if i % 2 else {}
        store.record(record_for(loaded, sample_library, **answers), None, loaded)
    for i in (0, 4, 8):
        store.decide(f"C-{i:03}", "covered", f"reason {i}", "ana")
    return store


def _rows(conn: sqlite3.Connection) -> list[tuple[int, str, str]]:
    return [
        (int(s), b, h)
        for s, b, h in conn.execute("SELECT seq, body, hash FROM audit_log ORDER BY seq")
    ]


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


def _valid(data: dict[str, Any]) -> bool:
    try:
        audit.AuditEntry.model_validate(data)
    except ValueError:
        return False
    return True


def _tamper_db(conn: sqlite3.Connection, rng: random.Random) -> tuple[str, int]:
    """Change the stored chain one way; returns the way and the first entry it breaks."""
    rows = _rows(conn)
    n = len(rows)
    seq, body, _ = rows[rng.randrange(n)]
    how = rng.choice(["edit", "edit_rehash", "hash", "delete", "swap", "renumber", "drop_tail"])
    if how == "edit":
        conn.execute("UPDATE audit_log SET body = ? WHERE seq = ?", (_edit_body(body, rng), seq))
        return how, seq
    if how == "edit_rehash":  # content and its own hash changed together
        new = _edit_body(body, rng)
        data = json.loads(new)
        conn.execute(
            "UPDATE audit_log SET body = ?, hash = ? WHERE seq = ?",
            (new, audit.entry_hash(data), seq),
        )
        prev = rows[seq - 2][2] if seq > 1 else audit.GENESIS
        old = json.loads(body)
        # The row's own claim id and time columns, outside the hash, must agree with the body.
        moved = (data.get("claim_id"), data.get("at")) != (old["claim_id"], old["at"])
        if not _valid(data) or data["seq"] != seq or data["prev"] != prev or moved:
            return how, seq
        return how, min(seq + 1, n)  # the next entry's link, or the head, no longer matches
    if how == "hash":
        conn.execute("UPDATE audit_log SET hash = ? WHERE seq = ?", ("0" * 64, seq))
        return how, seq
    if how == "delete":
        conn.execute("DELETE FROM audit_log WHERE seq = ?", (seq,))
        return how, seq
    if how == "drop_tail":
        conn.execute("DELETE FROM audit_log WHERE seq = ?", (n,))
        return how, n
    other = rng.choice([r for r in rows if r[0] != seq])
    first = min(seq, other[0])
    if how == "swap":  # two entries change places
        for (s, _, _), (_, b, h) in ((rows[seq - 1], other), (other, rows[seq - 1])):
            conn.execute("UPDATE audit_log SET body = ?, hash = ? WHERE seq = ?", (b, h, s))
        return how, first
    # renumber: the rows keep their contents but trade positions
    conn.execute("UPDATE audit_log SET seq = -1 WHERE seq = ?", (seq,))
    conn.execute("UPDATE audit_log SET seq = ? WHERE seq = ?", (seq, other[0]))
    conn.execute("UPDATE audit_log SET seq = ? WHERE seq = -1", (other[0],))
    return how, first


def test_random_tampering_in_the_database_is_detected(chain: Store) -> None:
    rng = random.Random(20251105)
    seen = set()
    with sqlite3.connect(chain.path, isolation_level=None) as conn:
        for _ in range(TRIALS):
            conn.execute("BEGIN")
            how, first_bad = _tamper_db(conn, rng)
            verdict = audit.verify(conn)
            conn.execute("ROLLBACK")
            assert not verdict.ok, how
            assert verdict.first_bad == first_bad, (how, verdict)
            seen.add(how)
        assert audit.verify(conn).ok  # every change was rolled back
    assert len(seen) == 7


def test_verify_names_the_first_broken_entry(chain: Store) -> None:
    with sqlite3.connect(chain.path, isolation_level=None) as conn:
        conn.execute("UPDATE audit_log SET body = replace(body, 'reason 4', 'reason 5')")
    verdict = chain.verify_audit()
    assert verdict.first_bad == 12 and not verdict.ok and verdict.entries == 11
    assert verdict.problem == "entry 12 was altered: its content no longer matches its hash"


def _tamper_export(lines: list[str], rng: random.Random) -> tuple[str, list[str]]:
    lines = list(lines)
    i = rng.randrange(len(lines))
    how = rng.choice(["edit", "edit_hash", "delete", "swap", "duplicate"])
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
        else:
            item["hash"] = _mutate(item["hash"], rng)
        lines[i] = audit.canonical(item)
    return how, lines


def test_random_tampering_in_an_export_is_detected(chain: Store) -> None:
    lines = chain.export_audit()
    assert len(lines) == 14 and audit.verify_export(lines) == audit.Verdict(True, 13)
    rng = random.Random(7)
    for _ in range(TRIALS):
        how, changed = _tamper_export(lines, rng)
        assert not audit.verify_export(changed).ok, (how, changed)


def test_an_export_since_a_time_verifies_on_its_own(chain: Store) -> None:
    with chain.read() as conn:
        sixth = json.loads(_rows(conn)[5][1])["at"]
    since = datetime.strptime(sixth, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    lines = chain.export_audit(since)
    header = json.loads(lines[0])["audit_export"]
    assert header["entries"] == 8 and header["first_seq"] == 6
    assert audit.verify_export(lines) == audit.Verdict(True, 8)
    assert not audit.verify_export([lines[0], *lines[2:]]).ok
    assert not audit.verify_export(lines[:-1]).ok


def test_an_empty_chain_verifies(tmp_path: Path) -> None:
    store = Store()
    assert store.verify_audit() == audit.Verdict(True, 0)
    assert audit.verify_export(store.export_audit()) == audit.Verdict(True, 0)
    assert not audit.verify_export([]).ok
