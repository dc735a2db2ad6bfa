"""The audit trail: every decision event is one entry, hash-chained to the entry before it.

An entry's hash is SHA-256 over its canonical JSON (sorted keys, no whitespace), and each entry
carries the previous entry's hash and its own sequence number, so editing, deleting or
reordering any entry breaks the chain at that entry. The last entry's number and hash are kept
as the chain head, so cutting entries off the end shows too.

The chain alone cannot show a rewrite by someone who re-hashes every entry after the one they
changed and moves the head (or cuts the tail and moves the head back), nor a well-formed entry
they append: the hashes still agree with one another. So every entry is signed as it is
appended, with a key kept outside the database (entry_signatures.py), and a checkpoint of the
head signed with the same key (checkpoint.py) pins the chain up to that entry. The rows the
entries recorded (decisions, escalations, reviews) are checked against them by audit_rows.py.

Entries are only ever appended, inside the caller's write transaction (base.py), on SQLite or
PostgreSQL alike. That transaction holds the store's write lock (SQLite's file lock, or the
advisory lock every PostgreSQL writer takes), which orders appends from any number of threads,
processes or machines. `append` also reads the head row `FOR UPDATE` (nothing on SQLite, where
the file lock already covers it), so on PostgreSQL even a transaction holding row locks only
waits for the append before it and then reads the head that append left: the chain never
forks, and seq numbers never repeat or skip. Before the first entry there is no head row to
lock; the first append inserts it (`ON CONFLICT DO NOTHING`), and a second writer's insert
waits on that row until the first commits. A human decision is a new entry that names the
entry it overrides; nothing is edited.

The hashes are taken over JSON text that this module writes and reads (a TEXT column on both
engines, never a JSON type the database could reformat), so an entry hashes the same on SQLite,
on PostgreSQL and in a copy from one to the other.

An export is JSONL: a header line with the entry count and the last hash, then one entry per
line exactly as it was hashed, plus its hash and signature. It can be verified on its own (with
the audit key, to check the signatures).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, insert, select

from claims_crew.store import entry_signatures, outbox
from claims_crew.store.audit_key import AuditKey
from claims_crew.store.entry_kinds import AppealLink, AuditEntry, EntryKind, canonical
from claims_crew.store.sql import insert_new, upsert
from claims_crew.store.tables import audit_head, audit_log

HEAD_ID = 1  # the one row of audit_head: there is one chain

GENESIS = "0" * 64
EXPORT_VERSION = 1

# An entry's fields and kinds, what an appeal's entry links to, and the JSON text hashed:
# entry_kinds.py.
__all__ = ["AppealLink", "AuditEntry", "EntryKind", "canonical"]


# What an entry that follows from another (a person's decision on an escalation, a letter that
# states a decision) copies from it: the claim, the versions it stood on, the rule and evidence.
_CARRIED = ("claim_sha256", "policy_sha256", "config_sha256", "models", "outcome", "rule")
_CARRIED_LISTS = ("reason_codes", "evidence")


def decides_nothing() -> dict[str, Any]:
    """The decision's fields of an entry that records no decision (a reviewer's settings, a
    service client's call): no versions, models, outcome, rule or evidence."""
    return {
        "policy_sha256": None,
        "config_sha256": None,
        "models": {},
        "outcome": None,
        "answer": None,
        "rule": None,
        "reason_codes": [],
        "evidence": [],
    }


def carried_from(body: dict[str, Any]) -> dict[str, Any]:
    """The fields an entry takes over from the entry `body` it follows from."""
    return {
        **{name: body[name] for name in (*_CARRIED, *_CARRIED_LISTS)},
        "policy_corrections_sha256": body.get("policy_corrections_sha256"),
    }


def entry_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()


_HEAD = select(audit_head.c.seq, audit_head.c.hash).where(audit_head.c.id == HEAD_ID)


def head(conn: Connection) -> tuple[int, str]:
    """The last entry's number and hash; (0, GENESIS) for an empty chain."""
    row = conn.execute(_HEAD).first()
    return (0, GENESIS) if row is None else (int(row[0]), str(row[1]))


def _locked_head(conn: Connection) -> tuple[int, str]:
    """The head, its row locked until the caller's transaction ends (see the docstring)."""
    locked = _HEAD.with_for_update()
    row = conn.execute(locked).first()
    if row is None:
        # An empty chain: make the row to lock. A writer that got here first holds it, and
        # this insert waits for that writer's commit, then finds the row and does nothing.
        insert_new(conn, audit_head, {"id": HEAD_ID, "seq": 0, "hash": GENESIS}, ["id"])
        row = conn.execute(locked).first()
    assert row is not None  # inserted or found just above, in this transaction
    return int(row[0]), str(row[1])


def append(conn: Connection, key: AuditKey, **fields: Any) -> tuple[AuditEntry, str]:
    """Add an entry after the chain head, signed with `key` (the key every entry of the chain
    is signed with); the caller holds a write transaction."""
    if not conn.in_transaction():
        raise RuntimeError("audit.append needs the caller's write transaction")
    seq, prev = _locked_head(conn)
    last = conn.execute(select(audit_log.c.body).where(audit_log.c.seq == seq)).scalar()
    entry_signatures.same_key(_key_named(last), key)
    entry = AuditEntry(seq=seq + 1, prev=prev, key_id=key.key_id, **fields)
    body = entry.model_dump(mode="json")
    digest = entry_hash(body)
    conn.execute(
        insert(audit_log).values(
            seq=entry.seq,
            claim_id=entry.claim_id,
            at=entry.at,
            body=canonical(body),
            hash=digest,
            signature=entry_signatures.sign(key, digest),
        )
    )
    upsert(conn, audit_head, {"id": HEAD_ID, "seq": entry.seq, "hash": digest}, ["id"])
    # A decision's webhook event, in this same transaction: announced exactly when it is made.
    outbox.announce_entry(conn, entry, digest)
    return entry, digest


def _key_named(body_text: str | None) -> str | None:
    """The key an entry's body names; None for none (or a body that is no entry, which
    `verify` reports)."""
    try:
        body = json.loads(body_text) if body_text else None
    except ValueError:
        return None
    key_id = body.get("key_id") if isinstance(body, dict) else None
    return key_id if isinstance(key_id, str) else None


@dataclass(frozen=True)
class Verdict:
    """What a walk over the chain found: `first_bad` is the first entry that fails, if any;
    `unsigned`, how many entries were written before entries were signed (the first ones)."""

    ok: bool
    entries: int
    first_bad: int | None = None
    problem: str | None = None
    unsigned: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "entries": self.entries,
            "first_bad": self.first_bad,
            "problem": self.problem,
            "unsigned": self.unsigned,
        }


class _Walk:
    """Checks entries one after another; the first failure sticks."""

    def __init__(
        self, key: AuditKey | None, first_seq: int = 1, prev: str | None = GENESIS
    ) -> None:
        self.expect_seq = first_seq
        self.prev = prev  # None: the entry before the first is unknown (an export --since)
        self.count = 0
        self.bad: Verdict | None = None
        self.signatures = entry_signatures.Signatures(key)

    def fail(self, seq: int, problem: str) -> None:
        if self.bad is None:
            self.bad = Verdict(False, self.count, seq, problem)

    def step(
        self,
        body_text: str,
        stored_hash: str,
        signature: str | None,
        row_seq: int | None = None,
        row_columns: tuple[str, str] | None = None,
    ) -> None:
        """Check the next entry and its signature; `row_seq` and `row_columns` (claim id,
        time) are what the stored row says beside the body, outside the hash, and must agree
        with it."""
        if self.bad is not None:
            return
        at = self.expect_seq
        try:
            body = json.loads(body_text)
            entry = AuditEntry.model_validate(body)
        except (ValueError, ValidationError) as exc:
            self.fail(at, f"entry {at} is not a valid entry: {str(exc).splitlines()[0]}")
            return
        if row_seq is not None and row_seq != entry.seq:
            self.fail(at, f"entry {at}: row {row_seq} holds entry {entry.seq}")
        elif entry.seq != at:
            self.fail(at, f"entry {at} expected, found entry {entry.seq} (deleted or reordered)")
        elif self.prev is not None and entry.prev != self.prev:
            self.fail(at, f"entry {at} does not follow the entry before it (prev hash differs)")
        elif entry_hash(body) != stored_hash:
            self.fail(at, f"entry {at} was altered: its content no longer matches its hash")
        elif row_columns is not None and row_columns != (entry.claim_id, entry.at):
            self.fail(at, f"entry {at}: its row's claim id or time differs from the entry")
        elif unsigned := self.signatures.problem(at, entry.key_id, stored_hash, signature):
            self.fail(at, unsigned)
        if self.bad is None:
            self.prev = stored_hash
            self.expect_seq += 1
            self.count += 1

    def end(self, last_seq: int, last_hash: str, what: str) -> Verdict:
        if self.bad is not None:
            return self.bad
        if self.expect_seq - 1 != last_seq:
            first_missing = min(self.expect_seq, last_seq + 1)
            return Verdict(
                False,
                self.count,
                first_missing,
                f"the {what} says the chain ends at entry {last_seq}, "
                f"but entries run to {self.expect_seq - 1}",
            )
        if self.count and self.prev != last_hash:
            return Verdict(
                False, self.count, last_seq, f"entry {last_seq} does not match the {what}'s hash"
            )
        return Verdict(True, self.count, unsigned=self.signatures.unsigned)


def verify(conn: Connection, key: AuditKey | None) -> Verdict:
    """Walk the stored chain from the first entry to the head, checking each entry's signature
    with `key` (needed once an entry is signed). (The rows the entries recorded are compared
    with them by audit_rows.py.)"""
    walk = _Walk(key)
    rows = conn.execute(
        select(
            audit_log.c.seq,
            audit_log.c.body,
            audit_log.c.hash,
            audit_log.c.signature,
            audit_log.c.claim_id,
            audit_log.c.at,
        ).order_by(audit_log.c.seq)
    )
    for row in rows:
        walk.step(row.body, row.hash, row.signature, int(row.seq), (row.claim_id, row.at))
        if walk.bad is not None:
            return walk.bad
    last_seq, last_hash = head(conn)
    return walk.end(last_seq, last_hash, "chain head")


def export_lines(conn: Connection, since: str | None, exported_at: str) -> Iterator[str]:
    """JSONL: a header, then every entry at or after `since` (UTC ISO text), with its hash and
    signature (null for an entry from before entries were signed).

    Reads one snapshot, so the header counts exactly the entries that follow it.
    """
    a = audit_log.c
    query = select(a.seq, a.body, a.hash, a.signature).order_by(a.seq)
    if since:
        query = query.where(a.at >= since)  # fixed-width ISO text orders as time
    entries = [(int(r.seq), str(r.body), str(r.hash), r.signature) for r in conn.execute(query)]
    header = {
        "audit_export": {
            "version": EXPORT_VERSION,
            "entries": len(entries),
            "first_seq": entries[0][0] if entries else None,
            "last_seq": entries[-1][0] if entries else None,
            "last_hash": entries[-1][2] if entries else None,
            "since": since,
            "exported_at": exported_at,
        }
    }
    yield canonical(header)
    for _seq, body, digest, signature in entries:
        yield canonical({"entry": json.loads(body), "hash": digest, "signature": signature})


def verify_export(lines: Iterable[str], key: AuditKey | None) -> Verdict:
    """Check an export on its own: header, order, links between entries, every hash, and with
    `key` every signature (needed once an entry is signed)."""
    it = iter(line for line in lines if line.strip())
    try:
        header = json.loads(next(it))["audit_export"]
        count, first_seq = int(header["entries"]), header["first_seq"]
        last_seq, last_hash = header["last_seq"], header["last_hash"]
    except (StopIteration, ValueError, KeyError, TypeError):
        return Verdict(False, 0, None, "the first line is not an audit export header")
    start = int(first_seq) if first_seq is not None else 1
    # The entry before an export that starts mid-chain is not in the file: trust its first link.
    walk = _Walk(key, start, GENESIS if start == 1 else None)
    for line in it:
        try:
            item = json.loads(line)
            body, digest = canonical(item["entry"]), str(item["hash"])
            signature = item.get("signature")
        except (ValueError, KeyError, TypeError, AttributeError):
            walk.fail(walk.expect_seq, f"entry {walk.expect_seq}: the line is not an entry")
            break
        walk.step(body, digest, signature if isinstance(signature, str) else None)
        if walk.bad is not None:
            return walk.bad
    if walk.count != count:
        return Verdict(
            False,
            walk.count,
            walk.expect_seq,
            f"the header counts {count} entries, the file has {walk.count}",
        )
    if count == 0:
        return Verdict(True, 0)
    return walk.end(int(last_seq), str(last_hash), "export header")
