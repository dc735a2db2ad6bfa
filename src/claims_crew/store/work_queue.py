"""The work queue: claims enter the store, and workers on any machine take them from it.

`enqueue` keeps a claim file whole in the store (its bytes, fields and attachments' text) and
queues its claim, unless the claim is decided. `take` hands a worker pending claims; `loaded`
puts a claim file back together from the store, so a worker needs no inbox folder.

Taking: on PostgreSQL the pending rows are picked with `FOR UPDATE SKIP LOCKED` in a write that
does not take the store's write lock (base.write(exclusive=False)), so workers never wait on one
another, and two workers never take the same row. On SQLite the same statement runs under the
file's write lock (SQLite has no row locks), which serialises takes as well.

An item taken is held for WORK_LEASE_S and kept by the worker's heartbeat (`heartbeat`). A
worker that dies releases nothing: its items come free when their lease runs out, or at once
when the holder was a process on this host that no longer runs (the holder names host and pid,
as the claim leases do). The claim lease (leases.py) and the decision's own check when it is
recorded stay the guarantee that a claim is decided once and never sent to a model after its
decision; the queue only decides who tries next.

A claim whose review keeps failing is parked (failures.py): its item's state is 'failed', and
neither a take nor an ingest of the same file queues it again.

What a worker calls here waits out a lost database (outage.py), except `heartbeat`, which its
own loop tries again.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Literal, cast

from sqlalchemy import ColumnElement, Connection, and_, func, or_, select, update

from claims_crew.claim_files import LoadedClaim, duplicate_id
from claims_crew.documents.record import AttachmentRecord, records_from_json
from claims_crew.errors import ClaimFileError
from claims_crew.models import ClaimFile
from claims_crew.store import tables as t
from claims_crew.store.base import StoreBase
from claims_crew.store.leases import holder_gone
from claims_crew.store.outage import rides_out
from claims_crew.store.sql import insert_new
from claims_crew.store.triage import triage_in
from claims_crew.vocabulary import stamp

# How long a taken item stays a worker's without a heartbeat: the longest a dead worker on
# another machine keeps its claims from the others. Heartbeats come several times within it.
WORK_LEASE_S = 60.0
# How long an item whose claim another process is reviewing (outside the queue) waits.
BUSY_BACKOFF_S = 5.0

Enqueued = Literal[
    "queued", "already_queued", "in_progress", "decided", "changed_after_decision", "parked"
]


@dataclass(frozen=True)
class Taken:
    """A claim a worker holds: its file's identity and where it was read from."""

    claim_id: str
    sha256: str
    path: str
    holder: str


@dataclass(frozen=True)
class QueueCounts:
    pending: int
    held: int  # of the pending: taken, their lease running
    done: int
    failed: int = 0  # parked until a person re-queues them


# Files enqueued in one write transaction (enqueue_all).
ENQUEUE_CHUNK = 64


class WorkQueue(StoreBase):
    """Ingesting claim files into the queue, and workers taking, holding and finishing them."""

    def enqueue(self, loaded: LoadedClaim) -> Enqueued:
        """Keep the claim file and queue its claim; a decided claim is not queued again.

        A file whose bytes differ from the decided one is flagged in changed_files (deciding
        it again is a person's call), as a run's triage does. A file whose bytes differ from
        the one already queued (waiting or under review) is refused with code duplicate_id,
        as two files with one claim id in an inbox are, and nothing of it is kept: the queue
        reviews the file that was queued, never a version swapped in under it. A claim whose
        review failed takes the newer file, as a first ingest would. A parked claim stays
        parked for the same file ("parked"), and is queued afresh for a changed one.
        """
        (state,) = self.enqueue_all([loaded])
        if isinstance(state, ClaimFileError):
            raise state
        return state

    def enqueue_all(self, files: Sequence[LoadedClaim]) -> list[Enqueued | ClaimFileError]:
        """`enqueue` for each file in order, ENQUEUE_CHUNK files to a write transaction: an
        inbox's files share a commit rather than paying one each (on SQLite each is a sync to
        disk, and a run's claims wait for them all before their reviews begin), and the write
        lock is never held long enough to keep workers waiting. A file `enqueue` would refuse
        gets its ClaimFileError in its place, and nothing of it is kept."""
        results: list[Enqueued | ClaimFileError] = []
        for start in range(0, len(files), ENQUEUE_CHUNK):
            with self.write() as conn:
                for loaded in files[start : start + ENQUEUE_CHUNK]:
                    try:
                        with conn.begin_nested():  # a refused file's rows go, the others' stay
                            results.append(self._enqueue_in(conn, loaded))
                    except ClaimFileError as exc:
                        results.append(exc)
        return results

    def _enqueue_in(self, conn: Connection, loaded: LoadedClaim) -> Enqueued:
        """`enqueue` within the write transaction `conn`."""
        claim_id, sha = loaded.claim.claim_id, loaded.sha256
        now = self.now()
        state = triage_in(conn, loaded, now)
        if state != "todo":
            return state
        item = {"claim_id": claim_id, "sha256": sha, "path": str(loaded.path)}
        if insert_new(conn, t.work_items, {**item, "enqueued_at": now}, ["claim_id"]):
            return "queued"
        w = t.work_items.c
        row = conn.execute(
            select(w.state, w.taken_by, w.expires_at, w.sha256, w.path)
            .where(w.claim_id == claim_id)
            .with_for_update()
        ).one()
        if row.state == "pending" and row.sha256 != sha:
            # Raised inside the write: the file kept by triage above is not kept either.
            raise duplicate_id(
                loaded.path,
                claim_id,
                f"is already queued from {Path(row.path).name}, with other content; this "
                "file is not queued (the queued one is reviewed as it was ingested)",
            )
        if row.state == "pending" and row.taken_by is not None and row.expires_at > now:
            return "in_progress"
        if row.state == "failed" and row.sha256 == sha:
            return "parked"  # a person re-queues it (`requeue`), not another ingest
        # Waiting, or done without a decision (its review failed), or parked and now
        # changed: queued again, as a run retries a failed claim.
        fresh = {"failures": 0, "failure_reasons": "[]"} if row.state == "failed" else {}
        conn.execute(
            update(t.work_items)
            .where(t.work_items.c.claim_id == claim_id)
            .values(
                **item,
                state="pending",
                taken_by=None,
                taken_at=None,
                expires_at=None,
                finished_at=None,
                enqueued_at=now if row.state != "pending" else t.work_items.c.enqueued_at,
                **fresh,
            )
        )
        return "queued" if row.state != "pending" else "already_queued"

    @rides_out
    def take(self, holder: str, limit: int = 1) -> list[Taken]:
        """Up to `limit` pending claims for `holder`, oldest first, held for WORK_LEASE_S.

        Free are the items nobody holds, those whose lease ran out, and those held by a
        process on this host that has died (seen at once, not at the lease's end).
        """
        with self.write(exclusive=False) as conn:
            now = self.now()
            w = t.work_items.c
            pending = (
                select(w.claim_id).where(w.state == "pending").order_by(w.enqueued_at, w.claim_id)
            )
            free: Sequence[str] = conn.scalars(
                pending.where(or_(w.expires_at.is_(None), w.expires_at <= now))
                .limit(limit)
                .with_for_update(skip_locked=True)
            ).all()
            ids = list(free)
            if len(ids) < limit:
                # Held by processes of this host: those that died are free now. Few rows: at
                # most what this host's workers have in hand.
                local = conn.execute(
                    select(w.claim_id, w.taken_by)
                    .where(
                        w.state == "pending",
                        w.expires_at > now,
                        w.taken_by.startswith(f"{socket.gethostname()}:", autoescape=True),
                    )
                    .order_by(w.enqueued_at, w.claim_id)
                    .with_for_update(skip_locked=True)
                ).all()
                ids += [row.claim_id for row in local if holder_gone(row.taken_by)][
                    : limit - len(ids)
                ]
            if not ids:
                return []
            rows = conn.execute(
                update(t.work_items)
                .where(w.claim_id.in_(ids))
                .values(
                    taken_by=holder,
                    taken_at=now,
                    expires_at=self._lease_end(),
                    tries=w.tries + 1,
                )
                .returning(w.claim_id, w.sha256, w.path)
            ).all()
        order = {claim_id: i for i, claim_id in enumerate(ids)}
        taken = [Taken(r.claim_id, r.sha256, r.path, holder) for r in rows]
        return sorted(taken, key=lambda item: order[item.claim_id])

    def heartbeat(self, holders: list[str]) -> int:
        """Extend the items and claim leases these holders have; how many items they hold."""
        if not holders:
            return 0
        until = self._lease_end()
        with self.write() as conn:
            held = conn.execute(
                update(t.work_items)
                .where(t.work_items.c.taken_by.in_(holders), t.work_items.c.state == "pending")
                .values(expires_at=until)
                .returning(t.work_items.c.claim_id)
            ).all()
            conn.execute(
                update(t.leases).where(t.leases.c.holder.in_(holders)).values(expires_at=until)
            )
        return len(held)

    @rides_out
    def put_back(self, item: Taken, after_s: float = 0.0) -> None:
        """Give an item up unfinished; it may be taken again after `after_s` seconds."""
        w = t.work_items.c
        with self.write() as conn:
            conn.execute(
                update(t.work_items)
                .where(w.claim_id == item.claim_id, w.taken_by == item.holder)
                .values(
                    taken_by=None,
                    taken_at=None,
                    expires_at=stamp(self.clock() + timedelta(seconds=after_s))
                    if after_s
                    else None,
                )
            )

    @rides_out
    def finish(self, item: Taken) -> bool:
        """The item's claim was reviewed (decided, or its attempt failed and is recorded):
        done. False when the item was no longer this holder's."""
        return self._done(item.claim_id, held_by(item.holder))

    @rides_out
    def finish_claim(self, claim_id: str) -> bool:
        """The claim was reviewed by its lease's holder outside a take (a run working its own
        inbox): its waiting item is done, so no worker takes it. False when none was waiting
        (or a worker holds it: it finishes the item itself once it sees the decision)."""
        return self._done(claim_id, held_by(None))

    def _done(self, claim_id: str, held: ColumnElement[bool]) -> bool:
        """The claim's pending item, held as `held` says, marked done; False if there was none."""
        with self.write() as conn:
            return mark_done(conn, claim_id, held, self.now())

    @rides_out
    def decided(self, claim_id: str) -> bool:
        with self.read() as conn:
            return (
                conn.execute(
                    select(t.decisions.c.claim_id).where(t.decisions.c.claim_id == claim_id)
                ).first()
                is not None
            )

    @rides_out
    def loaded(self, claim_id: str, sha256: str, path: str | None = None) -> LoadedClaim | None:
        """The claim file as an inbox read would give it, from the store; None if not kept.

        A file kept before attachments were stored, with attachments, cannot be rebuilt: None.
        """
        c = t.claim_files.c
        with self.read() as conn:
            row = conn.execute(
                select(c.path, c.fields, c.content, c.attachments).where(
                    c.claim_id == claim_id, c.sha256 == sha256
                )
            ).first()
        if row is None or row.content is None or row.fields is None:
            return None
        claim = ClaimFile.model_validate_json(row.fields)
        if row.attachments is None and claim.attachments:
            return None
        documents = records_from_json(row.attachments or "{}")
        return LoadedClaim(Path(path or row.path), claim, bytes(row.content), documents)

    @rides_out
    def kept_records(self, claim_id: str, sha256: str) -> dict[str, AttachmentRecord] | None:
        """The attachments' text of record kept for this claim file version; None if none is
        (the file is new, or was kept before attachments were)."""
        c = t.claim_files.c
        with self.read() as conn:
            stored = conn.execute(
                select(c.attachments).where(c.claim_id == claim_id, c.sha256 == sha256)
            ).scalar()
        return None if stored is None else records_from_json(stored)

    @rides_out
    def queue_counts(self) -> QueueCounts:
        w = t.work_items.c
        with self.read() as conn:
            now = self.now()
            held = and_(w.taken_by.is_not(None), w.expires_at > now)
            rows = conn.execute(
                select(w.state, func.count(), func.count().filter(held)).group_by(w.state)
            ).all()
        counts: dict[str, int] = {str(state): cast(int, n) for state, n, _ in rows}
        in_hand = sum(cast(int, n) for state, _, n in rows if state == "pending")
        return QueueCounts(
            counts.get("pending", 0), in_hand, counts.get("done", 0), counts.get("failed", 0)
        )

    def _lease_end(self) -> str:
        return stamp(self.clock() + timedelta(seconds=WORK_LEASE_S))


def held_by(holder: str | None) -> ColumnElement[bool]:
    """An item taken by `holder`, or with None one no worker has taken (a run's own claim)."""
    w = t.work_items.c
    return w.taken_by.is_(None) if holder is None else w.taken_by == holder


def mark_done(conn: Connection, claim_id: str, held: ColumnElement[bool], now: str) -> bool:
    """In the caller's transaction: the claim's pending item, held as `held` says, done; False
    if there was none (recording.py finishes it so, with the claim's record)."""
    w = t.work_items.c
    done = conn.execute(
        update(t.work_items)
        .where(w.claim_id == claim_id, held, w.state == "pending")
        .values(state="done", finished_at=now, expires_at=None)
        .returning(w.claim_id)
    ).first()
    return done is not None
