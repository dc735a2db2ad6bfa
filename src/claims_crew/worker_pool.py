"""A run's claims reviewed in several processes that share one decision store.

CrewAI's own Python work for a claim (building the crew, rendering prompts, parsing answers,
firing events) runs under the interpreter lock, so one process keeps only so many claims moving
however many wait on the provider. N worker processes (worker.py) each have a lock of their own.

The parent splits the claim files between the workers, one file each in turn, and starts each
worker as a fresh `python -m claims_crew.worker` (no fork of a process holding threads and
SQLite connections). A worker reviews its share as a one-process run does, at the run's
concurrency: it takes each claim's lease in the store before any model call, records the claim
in one transaction and releases it, so a claim is sent to the models once even if another run
works the same inbox. Each worker opens the parent's store by its URL (SQLite or PostgreSQL),
and every write waits its turn (store/base.py), so the workers write side by side.

A worker that dies (killed, out of memory) loses nothing: what it recorded is whole, the claim
it was on has no decision, and its lease names a process that no longer runs, so the next run
takes it at once (store/leases.py). The parent reports each dead worker and the claims it had
not finished; the run then exits non-zero.

CLAIMS_CREW_MAX_RPM counts per process: each worker is given an equal share of the cap
(limits.rpm_share).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claims_crew.claim_files import claim_ids
from claims_crew.errors import ClaimFileError
from claims_crew.limits import Limits, rpm_share
from claims_crew.pipeline import BatchItem
from claims_crew.store import Store
from claims_crew.store.engine import DATABASE_URL_VARIABLE
from claims_crew.vocabulary import ClaimFileProblem

# What the workers run: `python -m WORKER_MODULE STORE CONFIG CONCURRENCY` (STORE as shown to
# people; the URL itself is in the worker's environment).
WORKER_MODULE = "claims_crew.worker"


@dataclass
class Worker:
    """One worker process, the claim files it was given, and those it reported finished."""

    number: int  # 1-based, as reported
    share: list[Path]
    process: subprocess.Popen[str]
    finished: set[Path] = field(default_factory=set)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def unfinished(self) -> list[Path]:
        return [p for p in self.share if p not in self.finished]


@dataclass(frozen=True)
class DeadWorker:
    """A worker that ended before its share was done, or with a failure of its own."""

    number: int
    workers: int
    pid: int
    returncode: int
    unfinished: list[Path]

    def describe(self) -> str:
        """'worker 2 of 2 (pid 4711) was killed by SIGKILL; 3 claim file(s) it had not
        finished are left for the next run: C-1.json, C-2.json, C-3.json'"""
        if self.returncode < 0:
            try:
                how = f"was killed by {signal.Signals(-self.returncode).name}"
            except ValueError:
                how = f"was killed by signal {-self.returncode}"
        else:
            how = f"exited with status {self.returncode}"
        text = f"worker {self.number} of {self.workers} (pid {self.pid}) {how}"
        if not self.unfinished:
            return text + " after its claims were done"
        names = ", ".join(p.name for p in self.unfinished)
        return (
            f"{text}; {len(self.unfinished)} claim file(s) it had not finished are left for "
            f"the next run: {names}"
        )


@dataclass(frozen=True)
class PoolResult:
    """The items of the claim files whose review ended, in the order given, and the dead."""

    items: list[BatchItem]
    dead: list[DeadWorker]


def shares(paths: Sequence[Path], workers: int) -> list[list[Path]]:
    """The files dealt out one at a time, so each worker gets as many as the others, give or
    take one; a worker that would get none is not started."""
    dealt = [list(paths[i::workers]) for i in range(max(1, workers))]
    return [share for share in dealt if share]


def worker_environment(workers: int, store: Store | None = None) -> dict[str, str]:
    """This process's environment, with each worker's share of CLAIMS_CREW_MAX_RPM and the
    store's URL (an SQLite file, a shadow's included, or PostgreSQL): in the environment rather
    than on the command line, where a password would show in the process list."""
    env = dict(os.environ)
    if store is not None:
        env[DATABASE_URL_VARIABLE] = store.url.render_as_string(hide_password=False)
    share = rpm_share(Limits.from_environment().max_rpm, workers)
    if share is not None:
        env["CLAIMS_CREW_MAX_RPM"] = str(share)
    return env


def _item(event: dict[str, Any], path: Path, store: Store) -> BatchItem:
    """A finished event as the item a one-process run makes; the record read from the store."""
    claim_id = event.get("claim_id")
    record = store.claim_record(claim_id) if isinstance(claim_id, str) else None
    code: ClaimFileProblem | None = event.get("code")
    return BatchItem(path, record, event.get("error"), busy=bool(event.get("busy")), code=code)


def run_in_workers(
    paths: Sequence[Path],
    store: Store,
    config_dir: Path,
    concurrency: int,
    workers: int,
    on_done: Callable[[BatchItem], None] | None = None,
    on_start: Callable[[Path], None] | None = None,
) -> PoolResult:
    """Review claim files in `workers` processes, each at most `concurrency` at a time.

    `on_start` and `on_done` hear of each file as a worker begins and ends it, as with
    pipeline.run_batch. A file that cannot be reviewed (unreadable, or sharing its claim id with
    another) gets its item here, with no worker and no model call.
    """
    refused = {p: e for p, e in claim_ids(paths).items() if isinstance(e, ClaimFileError)}
    done: dict[Path, BatchItem] = {}
    lock = threading.Lock()
    for path, exc in refused.items():
        if on_start is not None:
            on_start(path)
        done[path] = BatchItem.refused(path, exc)
        if on_done is not None:
            on_done(done[path])
    todo = [p for p in paths if p not in refused]
    dealt = shares(todo, workers)
    env = worker_environment(len(dealt), store)
    pool: list[Worker] = []
    try:
        for number, share in enumerate(dealt, start=1):
            command = [sys.executable, "-m", WORKER_MODULE, store.where, str(config_dir)]
            process = subprocess.Popen(
                [*command, str(concurrency)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                env=env,
            )
            pool.append(Worker(number, share, process))
        for worker in pool:
            assert worker.process.stdin is not None
            try:
                with worker.process.stdin as stdin:
                    json.dump([str(p) for p in worker.share], stdin)
            except BrokenPipeError:
                pass  # it died before reading its share: reported with the dead below

        def listen(worker: Worker) -> None:
            by_name = {str(p): p for p in worker.share}
            assert worker.process.stdout is not None
            for line in worker.process.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue  # the last line of a worker killed while writing it
                if (started := by_name.get(event.get("started", ""))) is not None:
                    if on_start is not None:
                        on_start(started)
                elif (path := by_name.get(event.get("finished", ""))) is not None:
                    item = _item(event, path, store)
                    with lock:
                        done[path] = item
                        worker.finished.add(path)
                    if on_done is not None:
                        on_done(item)
            worker.process.wait()

        listeners = [
            threading.Thread(target=listen, args=(w,), name=f"worker {w.number}") for w in pool
        ]
        for listener in listeners:
            listener.start()
        for listener in listeners:
            listener.join()
    finally:
        for worker in pool:  # interrupted: no worker outlives the run
            if worker.process.poll() is None:
                worker.process.terminate()
                worker.process.wait()
    dead = [
        DeadWorker(w.number, len(pool), w.pid, w.process.returncode, w.unfinished)
        for w in pool
        if w.process.returncode != 0 or w.unfinished
    ]
    return PoolResult([done[p] for p in paths if p in done], dead)
