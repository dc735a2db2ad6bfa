"""The one claim routine: what `claims-crew run` and every queue worker do with a claim, and
what an appeal or a revalidation does with a decided one.

A new claim (decide_claim): lease → decided already? → the claim file from the store → review
within the deadline → record, finish its queue item and release, in one transaction. A run
calls it for the claims it has just ingested (batch.py), a worker for the claims it takes from
the queue (worker.py); both read the claim as ingest kept it, so a claim file is read from disk
once.

A decided claim (decide_again): lease → review within the deadline → record → release, the same
lease and review; the caller (appeal.py, revalidate.py) says how its new decision is recorded,
and a failed review is kept as an attempt only, leaving the decision in force.

Why a claim is decided exactly once and never sent to a model after its decision: a model is
called for a claim only by the holder of its claim lease, taken under the store's write lock,
and only after the holder has seen no decision; the decision is written, under the same lock,
before the lease is released, and never when one exists already (Store.record).

A holder paused past its lease (a stopped process, a machine asleep) may find on waking that
another has taken the claim. So before each model call the store is asked whether the lease is
still this holder's (LeaseCheck, in the hook every call passes: llms/cutoff.py), and the record
is written only while it is (Store.record with the holder). Once it is not, the review is
abandoned: nothing is recorded, the queue item is not finished, and the claim is left to the
holder that has it now (a `busy` item saying why).

Any other error inside the claim's review is the claim's failure, recorded as its attempt with
its traceback in its log, and never the process's (faults.py); a claim that keeps failing so is
parked until a person re-queues it (store/failures.py).

A claim gets until its deadline (limits.py); past it, the claim is recorded as failed with code
`timeout` and the batch goes on, while the abandoned review can no longer call a model or reach
the store (deadline.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from claims_crew.claim_files import LoadedClaim
from claims_crew.crew.console import crewai_console_off
from claims_crew.crew.workarounds.generic_models import share_generic_models
from claims_crew.errors import LeaseLost, StoreError
from claims_crew.llms.cutoff import model_calls_until
from claims_crew.records import ClaimRecord, RunError
from claims_crew.resolver import Resolution
from claims_crew.run.claim_log import capturing
from claims_crew.run.context import RunContext
from claims_crew.run.crew_review import record_head, review_claim
from claims_crew.run.deadline import run_within
from claims_crew.run.faults import failure_reason, fault_record, the_process_s
from claims_crew.run.ingest import Ingested, StoredClaim
from claims_crew.store import Store, lease_holder
from claims_crew.store.decision_rows import Basis
from claims_crew.store.leases import LEASE_SECONDS
from claims_crew.store.recording import Done
from claims_crew.store.work_queue import Taken
from claims_crew.vocabulary import CLAIM_FAULTS, ClaimFileProblem, utc_now


@dataclass(frozen=True)
class BatchItem:
    """A claim file's outcome in a batch: its record, or why its file could not be read."""

    path: Path
    record: ClaimRecord | None
    error: str | None = None
    busy: bool = False  # another process is reviewing it: not a failure, and not ours to do
    code: ClaimFileProblem | None = None  # why the file was refused, with `error`
    # (attachment, code, message) for attachments read only in part or changed since intake
    # (Ingested.notes): the claim was reviewed on its text of record all the same.
    notes: tuple[tuple[str, str, str], ...] = ()

    @classmethod
    def refused(cls, item: Ingested) -> BatchItem:
        """A file ingest refused: why, and no record."""
        return cls(item.path, None, item.error, code=item.code)

    @property
    def ok(self) -> bool:
        return self.busy or (self.record is not None and self.record.status == "reviewed")


@dataclass(frozen=True)
class Lease:
    """Who holds the claim while the routine runs, for how long, and the queue item it took
    (None: the run's own claim, whose queue item is finished by claim id)."""

    holder: str
    seconds: float
    taken: Taken | None = None

    @classmethod
    def past_deadline(cls, settings: RunContext) -> Lease:
        """A lease nobody renews (a run's own claims, an appeal, a revalidation): it outlasts the
        claim's deadline, so another process never takes a claim still under way."""
        deadline = settings.limits.claim_deadline_s
        seconds = max(LEASE_SECONDS, deadline + 60) if deadline is not None else LEASE_SECONDS
        return cls(lease_holder(), seconds)


@contextmanager
def holding(store: Store, claim_id: str, lease: Lease) -> Iterator[LeaseCheck | None]:
    """The claim's lease for the block, released after it; None when another process holds it.
    The LeaseCheck is asked before each of the claim's model calls."""
    if not store.lease(claim_id, lease.holder, lease.seconds):
        yield None
        return
    check = LeaseCheck(store, claim_id, lease.holder)
    try:
        yield check
    finally:
        if not check.released:  # else released with the claim's record
            store.release(claim_id, lease.holder)


def decide_claim(
    claim: StoredClaim,
    lease: Lease,
    settings: RunContext,
    run_id: int | None,
    on_start: Callable[[Path], None] | None = None,
) -> BatchItem | None:
    """Review and record one stored claim; None when another process holds its lease."""
    store, claim_id = settings.store, claim.claim_id
    with holding(store, claim_id, lease) as check:
        if check is None:
            return None
        loaded: LoadedClaim | None = None
        record: ClaimRecord | None = None
        try:
            if on_start is not None:
                on_start(claim.path)
            if store.decided(claim_id):
                # Decided since it was queued (another run, or a worker that died after its
                # decision): never ask a model again.
                _finish(settings, claim, lease)
                return BatchItem(claim.path, store.claim_record(claim_id))
            loaded = store.loaded(claim_id, claim.sha256, str(claim.path))
            if loaded is None:
                _finish(settings, claim, lease)
                why = "its file is not whole in the store; ingest its inbox again"
                return BatchItem(claim.path, None, f"{claim.path}: {why}", code="unreadable")
            record = review_in_time(loaded, settings, check)
            check.confirm()
            basis = settings.basis(record, loaded)
            _record_and_settle(settings, claim, lease, check, record, run_id, loaded, basis)
            return BatchItem(claim.path, record)
        except LeaseLost as lost:
            return BatchItem(claim.path, None, str(lost), busy=True)
        except Exception as exc:
            if the_process_s(exc):
                raise
            failed = fault_record(claim, exc, loaded, record)
            return _claim_fault(settings, claim, lease, check, run_id, failed)


def _record_and_settle(
    settings: RunContext,
    claim: StoredClaim,
    lease: Lease,
    check: LeaseCheck,
    record: ClaimRecord,
    run_id: int | None,
    loaded: LoadedClaim | None,
    basis: Basis | None,
) -> None:
    """Record the attempt and settle its queue item: a claim done is finished and released in
    its record's own transaction (recording.Done); one whose fault counts toward parking is
    settled after it (_settle)."""
    done = None
    if not _counts_as_fault(record):
        done = Done(lease.holder, lease.taken.holder if lease.taken is not None else None)
    settings.store.record(record, run_id, loaded, basis, holder=lease.holder, then=done)
    if done is not None:
        check.released = True
    else:
        _settle(settings, claim, lease, record)


def _counts_as_fault(record: ClaimRecord) -> bool:
    """The claim failed with a fault of its own, which counts toward parking it."""
    error = record.error
    return record.status == "failed" and error is not None and error.code in CLAIM_FAULTS


def _claim_fault(
    settings: RunContext,
    claim: StoredClaim,
    lease: Lease,
    check: LeaseCheck,
    run_id: int | None,
    failed: ClaimRecord,
) -> BatchItem:
    """The claim's review raised: its failed attempt recorded and counted, as any other."""
    try:
        _record_and_settle(settings, claim, lease, check, failed, run_id, None, None)
    except LeaseLost as lost:
        return BatchItem(claim.path, None, str(lost), busy=True)
    return BatchItem(claim.path, failed)


def parked_item(settings: RunContext, claim: StoredClaim) -> BatchItem:
    """A parked claim in a run's results: its last failed attempt, said to be parked."""
    parked = settings.store.parked(claim.claim_id)
    last = settings.store.claim_record(claim.claim_id)
    if parked is None or last is None:
        return BatchItem(claim.path, None, "being reviewed by another process", busy=True)
    why = (
        f"failed {parked.failures} time(s), last {parked.reasons[-1] if parked.reasons else '?'}; "
        f"not reviewed until `claims-crew requeue {claim.claim_id}`"
    )
    error = RunError(code="parked", message=why)
    return BatchItem(claim.path, last.model_copy(update={"error": error}))


class LeaseCheck:
    """Asked before each of a claim's model calls: is the claim's lease still this holder's?

    Once it is not, or the store cannot say, it answers no to every later call as well, and
    `confirm` raises why: LeaseLost, or the store's own error (a database gone for good).
    """

    def __init__(self, store: Store, claim_id: str, holder: str) -> None:
        self.store, self.claim_id, self.holder = store, claim_id, holder
        self._refused: Exception | None = None
        self.released = False  # the lease went with the claim's record (_record_and_settle)

    def __call__(self) -> bool:
        if self._refused is None:
            try:
                if not self.store.holds(self.claim_id, self.holder):
                    self._refused = LeaseLost(self.claim_id)
            except Exception as exc:  # no call on a lease nobody could confirm
                self._refused = exc
        return self._refused is None

    def confirm(self) -> None:
        """Raise what refused a model call of this claim, if anything did."""
        if self._refused is not None:
            raise self._refused


def _settle(settings: RunContext, claim: StoredClaim, lease: Lease, record: ClaimRecord) -> None:
    """Its queue item after the attempt is recorded: done, or, where the claim failed with a
    fault of its own, counted and given up for another try, or parked (store/failures.py)."""
    if not _counts_as_fault(record):
        _finish(settings, claim, lease)
        return
    holder = lease.holder if lease.taken is not None else None
    settings.store.fail(
        claim.claim_id, holder, failure_reason(record), settings.limits.max_failures
    )


def _finish(settings: RunContext, claim: StoredClaim, lease: Lease) -> None:
    """Its queue item is done: no worker is to take the claim now."""
    if lease.taken is not None:
        settings.store.finish(lease.taken)
    else:
        settings.store.finish_claim(claim.claim_id)


def review_in_time(
    loaded: LoadedClaim, settings: RunContext, held: Callable[[], bool] | None = None
) -> ClaimRecord:
    """review_claim, given until the claim's deadline; past it, a failed record with code
    `timeout`, and the abandoned review makes no further model call. `held` is asked before
    each model call, which it refuses by answering False (LeaseCheck)."""
    started = utc_now()
    seconds = settings.limits.claim_deadline_s

    def review(stop: threading.Event) -> ClaimRecord:
        # What CrewAI logs or prints meanwhile goes to the claim's log, not the terminal.
        with (
            model_calls_until(stop, settings.rate_limit, held),
            capturing(loaded.claim.claim_id),
            crewai_console_off(),
        ):
            return review_claim(loaded, settings)

    # In this thread's own context, which run_within copies: the claims this thread reviews
    # then share one cache of pydantic's generic models (crew/workarounds/generic_models.py).
    share_generic_models()
    record = run_within(seconds, review, name=f"review {loaded.claim.claim_id}")
    if record is not None:
        return record
    return ClaimRecord(
        **record_head(loaded, started),
        status="failed",
        finished_at=utc_now(),
        error=RunError(
            code="timeout",
            message=f"no result within {seconds:g} s (CLAIMS_CREW_CLAIM_DEADLINE); "
            "the next run retries it",
        ),
    )


T = TypeVar("T")


class ReviewFailed(Exception):
    """A decided claim's review again failed: its attempt is recorded, and the decision in force
    stands. The message says why."""


def decide_again(
    settings: RunContext, loaded: LoadedClaim, record_new: Callable[[ClaimRecord, Resolution], T]
) -> T:
    """Review a decided claim again, as the store kept it (`loaded`), under its lease, held as a
    run holds it; then `record_new(record, resolution)` records the new decision while the lease
    is still held, and what it returns is returned. StoreError when another process holds the
    claim; ReviewFailed when the review fails, its attempt recorded and nothing decided."""
    store = settings.store
    lease = Lease.past_deadline(settings)
    with holding(store, loaded.claim.claim_id, lease) as check:
        if check is None:
            raise StoreError("being reviewed by another process")
        record = review_in_time(loaded, settings, check)
        check.confirm()
        if record.status != "reviewed" or record.resolution is None:
            store.record(record, None, loaded, holder=lease.holder)  # kept as an attempt
            why = record.error.message if record.error else "no resolution"
            raise ReviewFailed(f"the review failed: {why}")
        return record_new(record, record.resolution)


def for_a_person(resolution: Resolution, reason: str, question: str) -> Resolution:
    """The rules' new outcome on a claim a person decided, as an escalation back to the queue
    (a person's decision is never overwritten by a review again): their outcome is kept as
    would_have_been; `reason` and `question` say what the person decided and why it is asked
    again."""
    return resolution.model_copy(
        update={
            "outcome": "ESCALATED",
            "answer": None,
            "winner": None,
            "would_have_been": resolution.outcome,
            "would_have_won": resolution.winner,
            "reason": reason,
            "question": question,
        }
    )


def said(resolution: Resolution) -> str:
    """What the rules say, as people read it: the outcome and any answer."""
    return resolution.outcome + (f" {resolution.answer}" if resolution.answer else "")
