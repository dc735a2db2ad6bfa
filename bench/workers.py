"""Benchmark: worker processes taking claims from one PostgreSQL, 1 process against several.

The model is the scripted OpenAI-compatible server of tests/support/openai_server.py on 127.0.0.1,
reached as users reach a provider (`MODEL=openai/gpt-4o-mini`, `MODEL_BASE_URL`), answering
after `--latency` seconds. Every claim is a copy of the water claim C-1042 (5 model calls:
intake, policy's look-up and answer, fraud, and intake's targeted question; 4 of them one after
another, since policy and fraud run side by side). Everything else is what users run:
`claims-crew work --concurrency C` processes, and the claims ingested into the store as
`claims-crew ingest` does it.

For each setup (1 process, then `--workers` processes, each at `--concurrency`), in a fresh
database: the workers are started first and the bench waits until every one of them is polling
the queue (their start-up, mostly importing CrewAI, is printed apart and not timed); then the
claims are ingested, and the time runs until the last one is decided. The workers are then
stopped with SIGTERM, as an operator would. It prints the wall times, claims per hour, the ratio
(goal: >= 3.5 x with 4 processes), the ideal (ceil(N / in flight) x the critical path of
4 x latency), and the CPU seconds the workers spent per claim: on a machine with few cores,
N x (CPU per claim) / cores is a floor no number of processes gets under. It checks that every
claim was decided exactly once (one decision, one attempt, one audit entry each) and that the
audit chain verifies.

    uv run python bench/workers.py                      # a throwaway cluster of its own
    uv run python bench/workers.py --database-url postgresql+psycopg://…/postgres
    uv run python bench/workers.py --small              # 4 claims, 2 processes: CI's check

`--database-url` names a server whose user may create databases; one is made per setup and
dropped after.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "config"
GOAL_RATIO = 3.5
# Calls of one water claim that follow one another: intake, policy's two, the targeted question.
CRITICAL_CALLS = 4


@dataclass(frozen=True)
class Setup:
    """One timed batch: its processes, their start-up, the wall time, the workers' CPU."""

    workers: int
    concurrency: int
    claims: int
    startup: float  # from starting the processes until every one polled the queue
    warm_wall: float  # the warm-up batch's wall time (not timed with the claims)
    warm_claims: int
    wall: float  # from the ingest's start until the last claim was decided
    ingest: float  # of `wall`: the ingest itself
    cpu: float  # the worker processes', start-up included
    startup_cpu: float  # the same processes' CPU until the timed claims were ingested
    problems: list[str]

    @property
    def per_hour(self) -> float:
        return claims_per_hour(self.claims, self.wall)

    @property
    def cpu_per_claim(self) -> float:
        return max(0.0, self.cpu - self.startup_cpu) / self.claims


def claims_per_hour(claims: int, wall: float) -> float:
    return 3600.0 * claims / wall if wall > 0 else math.inf


def ideal_wall(claims: int, in_flight: int, latency: float) -> float:
    """The claims in waves of `in_flight`, each wave one critical path of model calls."""
    return math.ceil(claims / max(1, in_flight)) * CRITICAL_CALLS * latency


def cpu_floor(claims: int, cpu_per_claim: float, cores: int) -> float:
    """The least wall time the claims' CPU work needs on this many cores."""
    return claims * cpu_per_claim / max(1, cores)


def verdict(ratio: float, goal: float = GOAL_RATIO) -> str:
    return "ok" if ratio >= goal else "MISS"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_setup(
    workdir: Path, server_url: str, workers: int, concurrency: int, claims: int, warm_up: bool
) -> Setup:
    """One batch in a fresh database, timed from the ingest (see the module's docstring)."""
    from claims_crew.store import Store
    from tests.support.postgres import fresh_database
    from tests.support.work_processes import (
        cpu_of,
        decided_once,
        wait_until_polling,
        work_batch,
        work_command,
        work_processes,
    )

    tag = f"{workers}x{concurrency}"
    ids = [f"B-{n:04d}" for n in range(claims)]
    # One claim per thread: each process's first claims pay its one-off costs (lazy imports,
    # schemas built on first use), which a long-running worker pays once.
    warm_ids = [f"WARM-{n:04d}" for n in range(workers * concurrency)] if warm_up else []
    with fresh_database(server_url) as url:
        store = Store(url=url)  # migrated here, before the workers start
        env = {**os.environ, "CLAIMS_CREW_DATABASE_URL": url}
        cpu_before = _children_cpu()
        started = time.perf_counter()
        command = work_command(concurrency)
        with work_processes(command, env, workers, workdir / f"worker-{tag}") as procs:
            wait_until_polling(store, procs)
            startup = time.perf_counter() - started
            warm_wall, _, refused = work_batch(store, procs, workdir / f"warm-{tag}", warm_ids)
            idle_cpu = cpu_of(procs)
            wall, ingest_s, more = work_batch(store, procs, workdir / f"inbox-{tag}", ids)
            refused += more
        problems = decided_once(store, [*warm_ids, *ids]) + [f"refused: {e}" for e in refused]
        problems += [
            f"a worker exited with status {p.returncode} on SIGTERM" for p in procs if p.returncode
        ]
        store.close()
    return Setup(
        workers, concurrency, claims, startup, warm_wall, len(warm_ids), wall, ingest_s,
        _children_cpu() - cpu_before, idle_cpu, problems,
    )  # fmt: skip


@contextmanager
def _server_url(given: str | None) -> Iterator[str]:
    """The PostgreSQL server to make databases on: the one given, or a throwaway cluster."""
    if given:
        yield given
        return
    from tests.support.postgres import find_bin_dir, throwaway_cluster

    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (initdb not found); or pass --database-url")
    with throwaway_cluster(bin_dir) as url:
        yield url


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, metavar="S", help="per call")
    parser.add_argument("--claims", type=int, default=64, metavar="N")
    parser.add_argument("--workers", type=int, default=4, metavar="W", help="against 1")
    parser.add_argument("--concurrency", type=int, default=8, metavar="C", help="per process")
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server to use")
    parser.add_argument(
        "--no-warm-up",
        dest="warm_up",
        action="store_false",
        help="time each process's first claims too (their one-off costs)",
    )
    parser.add_argument(
        "--small",
        action="store_true",
        help="4 claims, 0.05 s a call, 2 processes of 2, no warm-up (CI's run)",
    )
    args = parser.parse_args(argv)
    if args.small:
        args.claims, args.latency, args.workers, args.concurrency = 4, 0.05, 2, 2
        args.warm_up = False
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
        workdir = Path(tmp)
        os.environ.update(
            {
                "CLAIMS_CREW_HOME": str(workdir / "home"),
                "CREWAI_STORAGE_DIR": str(workdir / "crewai-storage"),
                "CLAIMS_CREW_POLICIES": str(ROOT / "policies"),
                "CLAIMS_CREW_CONFIG": str(CONFIG),
                "CREWAI_DISABLE_TELEMETRY": "true",
                "OTEL_SDK_DISABLED": "true",
                "CREWAI_TRACING_ENABLED": "false",
                "MODEL": "openai/gpt-4o-mini",
                "OPENAI_API_KEY": "sk-bench-not-a-real-key",
            }
        )
        bench(
            workdir,
            max(1, args.claims),
            max(0.0, args.latency),
            max(2, args.workers),
            max(1, args.concurrency),
            args.database_url,
            args.warm_up,
        )


def bench(
    workdir: Path,
    claims: int,
    latency: float,
    workers: int,
    concurrency: int,
    url: str | None,
    warm_up: bool = True,
) -> None:
    sys.path.insert(0, str(ROOT))
    from claims_crew.policy.library import PolicyLibrary
    from tests.support.openai_server import OpenAIServer

    PolicyLibrary().open("HM-HOME-001")  # indexed where the workers look, before any timing
    sys.path.insert(0, str(ROOT / "bench"))
    from provider import respond_for_water  # the same answers as bench/provider.py

    cores = os.cpu_count() or 1
    with (
        _server_url(url) as server_url,
        OpenAIServer(respond_for_water(), latency_s=latency) as server,
    ):
        os.environ["MODEL_BASE_URL"] = server.base_url
        print(
            f"bench/workers.py: {claims} claims, latency {latency:g} s a call, "
            f"{CRITICAL_CALLS} calls on each claim's critical path; {cores} CPUs; PostgreSQL."
        )
        warm = " and a warm-up batch of one claim per thread" if warm_up else ""
        print(
            "Timed: from the ingest's start until every claim is decided. Not timed, printed "
            f"apart: the workers' start-up (they are polling the queue before the ingest){warm}."
        )
        setups = [
            run_setup(workdir, server_url, n, concurrency, claims, warm_up) for n in (1, workers)
        ]
    report(setups, latency, cores)


def report(setups: list[Setup], latency: float, cores: int) -> None:
    header = (
        f"{'processes':>9} {'c each':>6} {'start-up s':>10} {'warm-up s':>13} "
        f"{'wall s':>7} {'ingest s':>8} "
        f"{'ideal s':>7} {'claims/h':>9} {'CPU s/claim':>11} {'CPU floor s':>11}"
    )
    print(header)
    for s in setups:
        ideal = ideal_wall(s.claims, s.workers * s.concurrency, latency)
        floor = cpu_floor(s.claims, s.cpu_per_claim, cores)
        print(
            f"{s.workers:>9} {s.concurrency:>6} {s.startup:>10.1f} "
            f"{f'{s.warm_wall:.1f} ({s.warm_claims})':>13} {s.wall:>7.2f} "
            f"{s.ingest:>8.2f} {ideal:>7.2f} {s.per_hour:>9.0f} {s.cpu_per_claim:>11.3f} "
            f"{floor:>11.2f}"
        )
    one, many = setups[0], setups[-1]
    ratio = one.wall / many.wall
    print(
        f"{many.workers} processes against 1: {ratio:.2f} x the claims per hour "
        f"(goal >= {GOAL_RATIO:g} x): {verdict(ratio)}"
    )
    floor = cpu_floor(many.claims, many.cpu_per_claim, cores)
    if floor > ideal_wall(many.claims, many.workers * many.concurrency, latency):
        print(
            f"CPU-bound here: {many.claims} claims x {many.cpu_per_claim:.3f} CPU s / {cores} "
            f"cores = {floor:.2f} s, above the {many.workers}-process ideal; more cores, or "
            "more machines, lift it."
        )
    for s in setups:
        said = "; ".join(s.problems) if s.problems else "ok"
        print(f"{s.workers} process(es): each claim decided exactly once, audit verify: {said}")
    if any(s.problems for s in setups):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
