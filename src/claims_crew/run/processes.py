"""A run's claims reviewed by N queue workers in processes of their own (`run --workers N`).

CrewAI's own Python work for a claim (building the crew, rendering prompts, parsing answers,
firing events) runs under the interpreter lock, so one process keeps only so many claims moving
however many wait on the provider. N processes each have a lock of their own.

The run has ingested its inbox, so its claims wait in the store's queue. The parent starts N
fresh `python -m claims_crew.run.work_process` processes (no fork of a process holding threads
and database connections): each is a `claims-crew work --until-empty` worker (worker.py) on the
parent's store, found by its URL, and reports each claim it starts and finishes on its stdout.
Every claim goes through the one claim routine (routine.py), so each is decided once whoever
takes it. Workers drain the queue: a claim queued by another inbox is reviewed too.

A worker that dies (killed, out of memory) loses nothing: what it recorded is whole, and the
claims it held come free at once on this host (their holder's process is gone), so the other
workers take them. The run reports each dead worker and what it held, and exits non-zero; a
claim nobody finished is left for the next run.

CLAIMS_CREW_MAX_RPM is counted in the store on PostgreSQL, once for every process on it
(llms/rate_limit.SharedRateLimit); on SQLite it counts per process, so each worker is given
an equal share of the cap (limits.rpm_share).
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
from typing import TYPE_CHECKING, Any

from claims_crew.run import awake
from claims_crew.settings import Limits, rpm_share
from claims_crew.store import Store
from claims_crew.store.engine import DATABASE_URL_VARIABLE
from claims_crew.vocabulary import ClaimFileProblem

if TYPE_CHECKING:
    # Not at run time: routine.py imports CrewAI, which `serve` (its --work workers started
    # from here) never needs in its own process.
    from claims_crew.run.routine import BatchItem

# What the workers run: `python -m WORKER_MODULE STORE CONFIG CONCURRENCY` (STORE as shown to
# people; the URL itself is in the worker's environment).
WORKER_MODULE = "claims_crew.run.work_process"
# The command line, as `python -m CLI_MODULE work` (`serve --work N`'s workers).
CLI_MODULE = "claims_crew.cli"


@dataclass
class WorkerProcess:
    """One worker process, and the claim files it has started and not yet finished."""

    number: int  # 1-based, as reported
    process: subprocess.Popen[str]
    in_hand: set[Path] = field(default_factory=set)

    @property
    def pid(self) -> int:
        return self.process.pid


@dataclass(frozen=True)
class DeadWorker:
    """A worker that ended with a failure of its own, and the claims it held then."""

    number: int
    workers: int
    pid: int
    returncode: int
    held: list[Path]

    def describe(self) -> str:
        """'worker 2 of 2 (pid 4711) was killed by SIGKILL while reviewing C-1047.json'"""
        if self.returncode < 0:
            try:
                how = f"was killed by {signal.Signals(-self.returncode).name}"
            except ValueError:
                how = f"was killed by signal {-self.returncode}"
        else:
            how = f"exited with status {self.returncode}"
        text = f"worker {self.number} of {self.workers} (pid {self.pid}) {how}"
        if not self.held:
            return text
        return f"{text} while reviewing {', '.join(sorted(p.name for p in self.held))}"


@dataclass(frozen=True)
class PoolResult:
    """The items of the claims whose review ended, the dead workers, the run's claims that
    no worker finished (left for the next run), and why a worker stopped early, if one did
    (run/batch_stop.py: the first reason heard)."""

    items: list[BatchItem]
    dead: list[DeadWorker]
    left: list[Path]
    stopped: str | None = None


def worker_environment(workers: int, store: Store | None = None) -> dict[str, str]:
    """This process's environment, with each worker's share of CLAIMS_CREW_MAX_RPM and
    CLAIMS_CREW_MAX_TPM (on SQLite;
    on PostgreSQL the workers count the whole cap together in the store) and the
    store's URL (an SQLite file, a shadow's included, or PostgreSQL): in the environment rather
    than on the command line, where a password would show in the process list."""
    env = dict(os.environ)
    if store is not None:
        env[DATABASE_URL_VARIABLE] = store.url.render_as_string(hide_password=False)
    limits = Limits.from_environment()
    for name, cap in (
        ("CLAIMS_CREW_MAX_RPM", limits.max_rpm),
        ("CLAIMS_CREW_MAX_TPM", limits.max_tpm),
    ):
        share = rpm_share(cap, workers)
        if share is not None and (store is None or not store.postgres):
            env[name] = str(share)
    return env


def _item(event: dict[str, Any], store: Store) -> BatchItem:
    """A finished event as the item a one-process run makes; the record read from the store."""
    from claims_crew.run.routine import BatchItem

    claim_id = event.get("claim_id")
    record = store.claim_record(claim_id) if isinstance(claim_id, str) else None
    code: ClaimFileProblem | None = event.get("code")
    path = Path(event["finished"])
    return BatchItem(path, record, event.get("error"), busy=bool(event.get("busy")), code=code)


def run_in_workers(
    todo: Sequence[Path],
    store: Store,
    config_dir: Path,
    concurrency: int,
    workers: int,
    on_done: Callable[[BatchItem], None] | None = None,
    on_start: Callable[[Path], None] | None = None,
) -> PoolResult:
    """Work the queue in `workers` processes, each at most `concurrency` claims at a time, until
    it is empty. `todo` are the run's own queued claim files: those no worker finished are
    `left`. `on_start` and `on_done` hear of each claim as a worker begins and ends it."""
    if not todo:  # nothing of this run's is queued: no interpreter is started for nothing
        return PoolResult([], [], [])
    env = worker_environment(workers, store)
    command = [sys.executable, "-m", WORKER_MODULE, store.where, str(config_dir), str(concurrency)]
    pool: list[WorkerProcess] = []
    done: dict[Path, BatchItem] = {}
    stopped: list[str] = []
    lock = threading.Lock()

    def listen(worker: WorkerProcess) -> None:
        assert worker.process.stdout is not None
        for line in worker.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue  # the last line of a worker killed while writing it
            if "started" in event:
                with lock:
                    worker.in_hand.add(Path(event["started"]))
                if on_start is not None:
                    on_start(Path(event["started"]))
            elif "finished" in event:
                item = _item(event, store)
                with lock:
                    done[item.path] = item
                    worker.in_hand.discard(item.path)
                if on_done is not None:
                    on_done(item)
            elif "stopped" in event:
                with lock:
                    stopped.append(str(event["stopped"]))
        worker.process.wait()

    try:
        for number in range(1, workers + 1):
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, text=True, encoding="utf-8", env=env
            )
            pool.append(WorkerProcess(number, process))
        listeners = [threading.Thread(target=listen, args=(w,)) for w in pool]
        for listener in listeners:
            listener.start()
        for listener in listeners:
            awake.join(listener)  # a stop is heard meanwhile
    finally:  # interrupted: no worker outlives the run
        stop_processes([w.process for w in pool])
    dead = [
        DeadWorker(w.number, len(pool), w.pid, w.process.returncode, sorted(w.in_hand))
        for w in pool
        if w.process.returncode != 0
    ]
    ours = set(todo)  # the run's own claims first, in its order; then what else was queued
    items = [done[p] for p in todo if p in done] + [i for p, i in done.items() if p not in ours]
    left = [p for p in todo if p not in done]
    return PoolResult(items, dead, left, stopped[0] if stopped else None)


def stop_processes(processes: Sequence[subprocess.Popen[Any]]) -> None:
    """SIGTERM each process still running, then wait for every one: a queue worker told so
    takes nothing more and finishes the claims in hand before it exits (cli/work.py)."""
    running = [p for p in processes if p.poll() is None]
    for process in running:
        process.terminate()
    for process in running:
        process.wait()


def start_queue_workers(count: int, store: Store, logs: Path) -> list[subprocess.Popen[bytes]]:
    """`count` `claims-crew work` processes on `store`, polling the queue until stopped
    (`serve --work N`), each writing what it prints to `logs`/work-N.log (appended). Each gets
    its share of the rate caps, as a run's workers do, and a session of its own, so a Ctrl-C at
    the terminal reaches only the parent, which then stops them once, gently (stop_processes),
    rather than twice, which would stop them at once."""
    env = worker_environment(count, store)
    command = [sys.executable, "-m", CLI_MODULE, "work"]
    logs.mkdir(parents=True, exist_ok=True)
    started = []
    for number in range(1, count + 1):
        with (logs / f"work-{number}.log").open("ab") as log:
            started.append(
                subprocess.Popen(
                    command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
                )
            )
    return started
