"""The review desk's rows against the audit entries that recorded them (audit_rows.py runs
these with its own checks, after the chain has verified).

The queue and the page read `reviewers`, `assignments` and `proposals`, not the audit log: a
limit raised, an escalation moved to someone else or a proposal marked confirmed by an edit to
those tables would change who decides what. So:

- a reviewer's settings are those of the last `reviewer` entry that names them, or the defaults
  where none does (a reviewer registered with the defaults);
- an assignment says what the entry it names says (an escalated or `assigned` entry of the
  claim, naming the reviewer), and that entry is the claim's latest word on who has it;
- a proposal says what its `proposed` entry says; one confirmed or returned names the `human`
  or `returned` entry that closed it, which names the proposal; one still open has no such
  entry; and every `proposed` entry has its proposal (or the row a revalidation replaced).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, select

from claims_crew.records import ReviewerSettings
from claims_crew.store.desk_rows import settings_from
from claims_crew.store.tables import assignments, audit_log, proposals, reviewers, superseded

Problem = tuple[int, str]

_ASSIGNING = ("escalated", "assigned")


def _entries(conn: Connection) -> list[dict[str, Any]]:
    """The desk's entries (and the escalated ones, which name a first assignment), in order."""
    rows: Iterator[str] = conn.execute(select(audit_log.c.body).order_by(audit_log.c.seq)).scalars()
    kinds = {*_ASSIGNING, "reviewer", "proposed", "returned", "human"}
    return [e for e in map(json.loads, rows) if e.get("kind") in kinds]


def _first_difference(what: str, seq: int, pairs: list[tuple[str, Any, Any]]) -> str | None:
    for name, row_value, entry_value in pairs:
        if row_value != entry_value:
            return f"{what} says {name} {row_value!r}, its audit entry {seq} says {entry_value!r}"
    return None


def _reviewer_problems(conn: Connection, entries: list[dict[str, Any]]) -> Iterator[Problem]:
    last: dict[str, dict[str, Any]] = {}
    for e in entries:
        if e["kind"] == "reviewer":
            last[e["reviewer"]] = e
    for row in conn.execute(select(reviewers).order_by(reviewers.c.name)):
        held = settings_from(row).model_dump(mode="json")
        entry = last.get(row.name)
        said = (
            entry["settings"] if entry is not None else ReviewerSettings().model_dump(mode="json")
        )
        if held != said:
            seq = entry["seq"] if entry is not None else 0
            source = f"its audit entry {seq}" if entry else "no audit entry sets them"
            yield seq, f"reviewer {row.name}'s settings are {held}, but {source}: {said}"


def _assignment_problems(conn: Connection, entries: list[dict[str, Any]]) -> Iterator[Problem]:
    by_seq = {e["seq"]: e for e in entries}
    latest: dict[str, int] = {}
    for e in entries:
        if e["kind"] in _ASSIGNING:
            latest[e["claim_id"]] = e["seq"]
    for row in conn.execute(select(assignments).order_by(assignments.c.audit_seq)):
        what = f"the assignment of claim {row.claim_id}"
        entry = by_seq.get(row.audit_seq)
        if entry is None or entry["kind"] not in _ASSIGNING:
            yield row.audit_seq, f"{what} names audit entry {row.audit_seq}, which assigns nothing"
        elif found := _first_difference(
            what,
            row.audit_seq,
            [
                ("claim", row.claim_id, entry["claim_id"]),
                ("reviewer", row.reviewer, entry.get("reviewer")),
            ],
        ):
            yield row.audit_seq, found
        elif latest.get(row.claim_id) != row.audit_seq:
            seq = latest[row.claim_id]
            yield seq, f"{what} names entry {row.audit_seq}, but entry {seq} assigned it since"


def _proposal_problems(conn: Connection, entries: list[dict[str, Any]]) -> Iterator[Problem]:
    by_seq = {e["seq"]: e for e in entries}
    closing = {e["confirms"]: e for e in entries if e.get("confirms") is not None}
    kept: set[int] = set(conn.execute(select(proposals.c.audit_seq)).scalars())
    kept |= set(
        conn.execute(
            select(superseded.c.audit_seq).where(superseded.c.what == "proposal")
        ).scalars()
    )
    for seq, entry in by_seq.items():
        if entry["kind"] == "proposed" and seq not in kept:
            yield (
                seq,
                f"audit entry {seq} (proposed, claim {entry['claim_id']}) has no proposal row",
            )
    for row in conn.execute(select(proposals).order_by(proposals.c.audit_seq)):
        what = f"the proposal on claim {row.claim_id}"
        proposed = by_seq.get(row.audit_seq)
        if proposed is None or proposed["kind"] != "proposed":
            yield row.audit_seq, f"{what} names audit entry {row.audit_seq}, which proposes nothing"
            continue
        found = _first_difference(
            what,
            row.audit_seq,
            [
                ("claim", row.claim_id, proposed["claim_id"]),
                ("reviewer", f"human:{row.reviewer}", proposed["actor"]),
                ("decision", row.decision, proposed["answer"]),
                ("reason", row.reason, proposed["reason"]),
                ("proposed at", row.proposed_at, proposed["at"]),
            ],
        )
        closed = closing.get(row.audit_seq)
        expected = {None: "open", "human": "confirmed", "returned": "returned"}
        state = expected.get(closed["kind"] if closed else None)
        if found:
            yield row.audit_seq, found
        elif row.state != state:
            seq = closed["seq"] if closed else row.audit_seq
            yield seq, f"{what} says it is {row.state}, the audit trail says {state}"
        elif closed is not None and (
            f"human:{row.closed_by}" != closed["actor"] or row.closed_seq != closed["seq"]
        ):
            said = f"entry {closed['seq']} says {closed['actor']}"
            yield closed["seq"], f"{what} says {row.closed_by} closed it, {said}"


def problems(conn: Connection) -> Iterator[Problem]:
    """Each problem found, with the entry it is charged to (0: before any entry)."""
    entries = _entries(conn)
    yield from _reviewer_problems(conn, entries)
    yield from _assignment_problems(conn, entries)
    yield from _proposal_problems(conn, entries)
