"""Claims whose review keeps failing: counted, then parked until a person re-queues them.

A claim whose review fails with a fault of its own (vocabulary.CLAIM_FAULTS: an error raised
outside the crew, `review_failed`) is given up for the next taker, and tried again, up to a
number of failures (settings/limits.py's max_failures). Then it is parked: its work item's state is
'failed', with each failure's reason, and no take, run or ingest of the same file queues it
again until a person re-queues it (`claims-crew requeue ID`), or a changed file for it is
ingested. One claim that breaks its review every time so costs a bounded number of reviews,
not one per worker for ever. Parking it announces `claim.failed` (outbox.py) in the same
transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import select, update

from claims_crew.store import outbox
from claims_crew.store import tables as t
from claims_crew.store.base import StoreBase
from claims_crew.store.outage import rides_out


@dataclass(frozen=True)
class Parked:
    """A claim parked after its reviews failed: how often, and why each time."""

    claim_id: str
    failures: int
    reasons: list[str]


class ClaimFailures(StoreBase):
    """Counting a claim's failed reviews, parking it, and a person re-queuing it."""

    @rides_out
    def fail(self, claim_id: str, holder: str | None, reason: str, most: int) -> bool:
        """The claim's review failed with a fault of its own: counted with its reason, and the
        item given up for the next taker, or parked once it failed `most` times. `holder` is
        the item's taker (None: the run's own claim, not taken). True when it is parked."""
        w = t.work_items.c
        held = w.taken_by == holder if holder is not None else w.taken_by.is_(None)
        with self.write() as conn:
            row = conn.execute(
                select(w.failures, w.failure_reasons)
                .where(w.claim_id == claim_id, held, w.state == "pending")
                .with_for_update()
            ).first()
            if row is None:
                return False  # no longer this holder's: its new holder counts its own
            failures = int(row.failures) + 1
            now = self.now()
            reasons = [*json.loads(row.failure_reasons), f"{now} {reason}"]
            parked = failures >= most
            free = {"taken_by": None, "taken_at": None, "expires_at": None}
            conn.execute(
                update(t.work_items)
                .where(w.claim_id == claim_id)
                .values(
                    **free,
                    failures=failures,
                    failure_reasons=json.dumps(reasons),
                    state="failed" if parked else "pending",
                    finished_at=now if parked else None,
                )
            )
            if parked:  # told to whoever follows the claim, with the parking, or not at all
                outbox.announce_failure(conn, claim_id, failures, reason, now)
        return parked

    def requeue(self, claim_id: str, actor: str) -> Parked | None:
        """A parked claim pending again, its failures forgotten, `actor` named on its item as
        who re-queued it; what it was parked with, or None when it is not parked."""
        w = t.work_items.c
        with self.write() as conn:
            row = conn.execute(
                select(w.failures, w.failure_reasons)
                .where(w.claim_id == claim_id, w.state == "failed")
                .with_for_update()
            ).first()
            if row is None:
                return None
            now = self.now()
            conn.execute(
                update(t.work_items)
                .where(w.claim_id == claim_id)
                .values(
                    state="pending",
                    failures=0,
                    failure_reasons="[]",
                    enqueued_at=now,
                    finished_at=None,
                    requeued_by=actor,
                    requeued_at=now,
                )
            )
        return Parked(claim_id, row.failures, json.loads(row.failure_reasons))

    @rides_out
    def parked(self, claim_id: str) -> Parked | None:
        """The claim, if it is parked."""
        w = t.work_items.c
        with self.read() as conn:
            row = conn.execute(
                select(w.failures, w.failure_reasons).where(
                    w.claim_id == claim_id, w.state == "failed"
                )
            ).first()
        return (
            None if row is None else Parked(claim_id, row.failures, json.loads(row.failure_reasons))
        )
