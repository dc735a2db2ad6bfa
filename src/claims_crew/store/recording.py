"""Recording attempts: runs, triage, and one claim's whole result written in one transaction.

The rows are written by attempt_rows.py (the attempt) and decision_rows.py (the decision), which
a revalidation (revalidation.py) writes through as well.

How a batch stays safe to kill and re-run:
- a claim's whole result, its decision and its audit entry are written in one write transaction
  (base.py), so a killed run leaves either all of it or none;
- a claim with a decision is never offered to a model again (`triage`, triage.py), and `record`
  looks for a decision again under the store's write lock before it writes one (the decisions
  table allows one row per claim besides), so two processes racing on a claim still leave one
  decision;
- a claim file whose bytes changed after it was decided is flagged `changed_after_decision`
  and left alone: deciding it again is a person's call;
- `record` given the lease's holder writes nothing, and raises LeaseLost, once another holder
  has taken the claim's lease (leases.py): a paused process's late result is never recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, insert, select, update

from claims_crew.claim_files import LoadedClaim
from claims_crew.errors import LeaseLost
from claims_crew.records import ClaimRecord
from claims_crew.store.attempt_rows import insert_result
from claims_crew.store.base import StoreBase
from claims_crew.store.decision_rows import Basis, Recorded, decide
from claims_crew.store.leases import holder_of, let_go
from claims_crew.store.outage import rides_out
from claims_crew.store.tables import decisions, runs
from claims_crew.store.triage import Triage, keep_file, triage_in
from claims_crew.store.work_queue import held_by, mark_done

# Basis is named here for the callers that record with one.
__all__ = ["Basis", "Done", "Recorded", "Recording", "Triage"]


@dataclass(frozen=True)
class Done:
    """What a claim's record also closes, in its transaction: the lease `holder` holds, and the
    claim's pending queue item, taken by `taken_by` (None: one no worker took, a run's own).
    One transaction instead of three: a claim's writes each wait for the file's lock and sync
    to disk, and a process killed in between left a decided claim still queued and leased."""

    holder: str
    taken_by: str | None


class Recording(StoreBase):
    """Runs, triage, and recording each attempt at a claim with its decision."""

    @rides_out
    def start_run(self, note: str = "") -> int:
        with self.write() as conn:
            return int(
                conn.execute(
                    insert(runs).values(started_at=self.now(), note=note).returning(runs.c.id)
                ).scalar_one()
            )

    @rides_out
    def finish_run(self, run_id: int) -> None:
        with self.write() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(finished_at=self.now()))

    def triage(self, loaded: LoadedClaim) -> Triage:
        """Whether a claim file still needs the models; a file changed after its decision is
        flagged in changed_files and not offered again."""
        with self.write() as conn:
            return triage_in(conn, loaded, self.now())

    @rides_out
    def record(
        self,
        record: ClaimRecord,
        run_id: int | None = None,
        loaded: LoadedClaim | None = None,
        basis: Basis | None = None,
        holder: str | None = None,
        then: Done | None = None,
    ) -> Recorded:
        """Write one claim's result whole, in one transaction: the attempt, agent outputs,
        ledger, resolution and adjudication; and, for a resolved claim not yet decided, its
        decision, its escalation if a person must decide, its audit entry, and what it stood
        on (`basis`, with the record's versions). With `holder`, only while that holder still
        holds the claim's lease: else LeaseLost, and nothing written. With `then`, the claim's
        queue item is finished and its lease released in the same transaction."""
        with self.write() as conn:
            # Under the write lock, which taking a lease needs too: the lease cannot pass to
            # another holder between this check and the commit.
            if holder is not None and holder_of(conn, record.claim_id) != holder:
                raise LeaseLost(record.claim_id)
            recorded = self._record_in(conn, record, run_id, loaded, basis)
            if then is not None:
                mark_done(conn, record.claim_id, held_by(then.taken_by), self.now())
                let_go(conn, record.claim_id, then.holder)
            return recorded

    def _record_in(
        self,
        conn: Connection,
        record: ClaimRecord,
        run_id: int | None,
        loaded: LoadedClaim | None,
        basis: Basis | None,
    ) -> Recorded:
        """The record's rows in the caller's write transaction (record, above)."""
        if loaded is not None:
            keep_file(conn, loaded, self.now())
        attempt_id, resolution_id = insert_result(conn, record, run_id)
        resolution = record.resolution
        if resolution is None or resolution_id is None:
            return Recorded(attempt_id, decided=False)
        # Looked for under the write lock, so no other writer can decide it in between.
        decided = conn.execute(
            select(decisions.c.claim_id).where(decisions.c.claim_id == record.claim_id)
        ).first()
        if record.status != "reviewed" or decided is not None:
            # Another process decided this claim meanwhile: its decision stands.
            return Recorded(attempt_id, decided=False, outcome=resolution.outcome)
        return decide(
            conn,
            self.audit_key(),
            self.now(),
            record,
            resolution,
            attempt_id,
            resolution_id,
            loaded,
            basis or Basis(),
        )
