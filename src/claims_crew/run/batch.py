"""A run's own claims reviewed in this process, at most `concurrency` at a time.

A run ingests its inbox first (ingest.py: each file read once and kept whole in the store),
then puts each claim it queued through the one claim routine (routine.py), as a queue worker
would. `claims-crew work` processes elsewhere on the same store may take some of the same
claims meanwhile; whoever holds a claim's lease reviews it, and the other skips it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from claims_crew.run import awake, collector, routine
from claims_crew.run.context import RunContext
from claims_crew.run.ingest import Ingested, ingest
from claims_crew.run.routine import BatchItem, Lease

# Ingested claims a run has nothing to do for: their record is shown as it is.
SETTLED = ("decided", "changed_after_decision")


def run_batch(
    paths: Sequence[Path],
    settings: RunContext,
    concurrency: int = 1,
    on_done: Callable[[BatchItem], None] | None = None,
    on_start: Callable[[Path], None] | None = None,
) -> list[BatchItem]:
    """Ingest claim files, then review them (review_ingested); results in the order given."""
    ingested = ingest(paths, settings.store, settings.limits.claim_deadline_s)
    return review_ingested(ingested, settings, concurrency, on_done, on_start)


def review_ingested(
    ingested: Sequence[Ingested],
    settings: RunContext,
    concurrency: int = 1,
    on_done: Callable[[BatchItem], None] | None = None,
    on_start: Callable[[Path], None] | None = None,
) -> list[BatchItem]:
    """Review ingested claims, at most `concurrency` at a time; results in the order given.

    `on_start` hears of each file as its review begins, `on_done` as it ends, so a display can
    show what is still under way. A refused file gets an item saying why, and no model call; a
    claim decided already gets its record. The run is recorded in the store; one killed halfway
    keeps no finish time.
    """
    collector.freeze_what_is_loaded()  # what the claims run on, before the first starts
    note = f"{len(ingested)} claim file(s), concurrency {concurrency}"
    run_id = settings.store.start_run(note)
    done: dict[Path, BatchItem] = {}

    def one(item: Ingested) -> BatchItem:
        if settings.batch_stop.is_set() and not item.refused:  # left queued (batch_stop.py)
            return BatchItem(item.path, None, "not started: the batch stopped early", busy=True)
        if on_start is not None:
            on_start(item.path)
        return _review_one(item, settings, run_id)

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = {pool.submit(one, item): item.path for item in ingested}
        for future in awake.as_completed(futures):  # a stop is heard meanwhile
            result = future.result()
            done[futures[future]] = result
            if on_done is not None:
                on_done(result)
    settings.store.finish_run(run_id)
    return [done[item.path] for item in ingested]


def _review_one(item: Ingested, settings: RunContext, run_id: int) -> BatchItem:
    if item.refused:
        return BatchItem.refused(item)
    claim = item.stored
    if item.state in SETTLED:
        return BatchItem(item.path, settings.store.claim_record(claim.claim_id))
    if item.state == "parked":  # failed too often: a person re-queues it (store/failures.py)
        return routine.parked_item(settings, claim)
    # A run has no heartbeat: its lease outlasts the claim's deadline.
    decided = routine.decide_claim(claim, Lease.past_deadline(settings), settings, run_id)
    if decided is None:
        return BatchItem(item.path, None, "being reviewed by another process", busy=True)
    return decided
