"""A worker: claims taken from the store's queue and reviewed, on any machine that reaches it.

What `claims-crew work` runs. `concurrency` threads each take one claim at a time
(store/work_queue.py) and put it through the one claim routine a run uses (routine.py: claim
lease, still undecided?, review within the deadline, record, finish). A heartbeat thread keeps
the items and claim leases of the claims in hand, so another worker takes a claim only once
this one has finished it, or died. A holder that dies leaves its lease to run out
(WORK_LEASE_S without a heartbeat), or to be seen free at once on its own host; it calls no
model once dead.

A stop (SIGTERM, Ctrl-C: `stop`) ends the taking; the claims in hand are finished first.

A lost database (a PostgreSQL restart) is waited for, up to CLAIMS_CREW_DATABASE_WAIT seconds
(store/outage.py): the threads' store calls are tried again, and the heartbeat goes on trying, so
the claims in hand keep their leases while the database comes back within their lease. A claim
whose lease another worker took meanwhile is given up at its next model call (routine.py). Past
the wait, the worker ends with DatabaseUnavailable, one line that says why.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from claims_crew.run import awake, collector, routine
from claims_crew.run.context import RunContext
from claims_crew.run.ingest import StoredClaim
from claims_crew.run.routine import BatchItem, Lease
from claims_crew.store import lease_holder
from claims_crew.store.outage import error_line, lost_database
from claims_crew.store.work_queue import BUSY_BACKOFF_S, WORK_LEASE_S, Taken

# How often an idle worker asks the queue again.
POLL_S = 0.5
# How often the claims in hand are told alive: several times within their lease.
HEARTBEAT_S = WORK_LEASE_S / 6

log = logging.getLogger(__name__)


class Worker:
    """Takes and reviews claims until the queue is empty (`until_empty`) or it is stopped.

    `on_start` hears of each claim file as its review begins, `on_done` as it ends, from the
    worker's threads, as with batch.run_batch.
    """

    def __init__(
        self,
        settings: RunContext,
        concurrency: int = 1,
        until_empty: bool = False,
        on_start: Callable[[Path], None] | None = None,
        on_done: Callable[[BatchItem], None] | None = None,
        poll_s: float = POLL_S,
    ) -> None:
        self.settings = settings
        self.store = settings.store
        self.concurrency = max(1, concurrency)
        self.until_empty = until_empty
        self.on_start = on_start
        self.on_done = on_done
        self.poll_s = poll_s
        self.stop = threading.Event()
        self._holders: set[str] = set()
        self._lock = threading.Lock()
        self.items: list[BatchItem] = []

    def run(self) -> list[BatchItem]:
        """Work until done; the items of the claims this worker reviewed, in the order ended."""
        collector.freeze_what_is_loaded()  # what the claims run on, before the first starts
        note = f"worker {socket.gethostname()}:{os.getpid()}, concurrency {self.concurrency}"
        run_id = self.store.start_run(note)
        beating = threading.Event()
        heart = threading.Thread(target=self._beat, args=(beating,), name="heartbeat", daemon=True)
        heart.start()
        try:
            with ThreadPoolExecutor(self.concurrency, thread_name_prefix="work") as pool:
                for future in [pool.submit(self._loop, run_id) for _ in range(self.concurrency)]:
                    awake.result(future)  # a stop is heard meanwhile
        finally:
            beating.set()
            heart.join()
        self.store.finish_run(run_id)
        return self.items

    def _loop(self, run_id: int) -> None:
        try:
            self._take_and_review(run_id)
        except BaseException:
            # Something no claim's record can hold (the store gone, claims-crew's own error that
            # every claim would meet; an error inside one claim's review is that claim's own:
            # faults.py): the other threads finish what they hold and the worker ends with it.
            # What this thread held comes free as a dead worker's does.
            self.stop.set()
            raise

    def _take_and_review(self, run_id: int) -> None:
        # A claim met a provider refusal that every claim would meet: take no more (batch_stop).
        while not self.stop.is_set() and not self.settings.batch_stop.is_set():
            holder = lease_holder()
            with self._lock:
                self._holders.add(holder)
            try:
                taken = self.store.take(holder)
                if taken:
                    item = self._review(taken[0], run_id)
                    if item is not None:
                        with self._lock:
                            self.items.append(item)
                        if self.on_done is not None:
                            self.on_done(item)
                    continue
            finally:
                with self._lock:
                    self._holders.discard(holder)
            if self.until_empty and self.store.queue_counts().pending == 0:
                return
            self.stop.wait(self.poll_s)

    def _review(self, item: Taken, run_id: int) -> BatchItem | None:
        """One taken claim through the claim routine; None when another process is reviewing
        it outside the queue (it is put back for later)."""
        lease = Lease(item.holder, WORK_LEASE_S, taken=item)
        claim = StoredClaim.of(item)
        done = routine.decide_claim(claim, lease, self.settings, run_id, self.on_start)
        if done is None or done.busy:  # the item too, if it is still this holder's
            self.store.put_back(item, BUSY_BACKOFF_S)
        return done

    def _beat(self, done: threading.Event) -> None:
        while not done.wait(HEARTBEAT_S):
            with self._lock:
                holders = list(self._holders)
            try:
                self.store.heartbeat(holders)
            except Exception as exc:  # a missed beat is retried; the lease outlasts several
                # The database gone (restarting) is said in one line; anything else in full.
                lost = lost_database(exc)
                why = f" ({error_line(exc)})" if lost else ""
                log.warning(
                    "heartbeat failed%s; retrying in %.0f s", why, HEARTBEAT_S, exc_info=not lost
                )
