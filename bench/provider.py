"""Benchmark: claims at provider speed, through CrewAI's own OpenAI client over HTTP.

The model is the scripted OpenAI-compatible server of tests/support/openai_server.py on 127.0.0.1,
reached the way users reach a provider (`MODEL=openai/gpt-4o-mini`, `MODEL_BASE_URL`); it
sleeps `--latency` seconds before every answer. Everything else is the real pipeline:
`pipeline.run_batch` with a real SQLite store and policy index in a temporary folder, the lease,
the deadline, the tool ledger, the resolver and the record. Every claim is a copy of the water
claim C-1042: intake answers its facts, policy looks 4.2(b) up and answers covered, fraud looks
7.1 up and answers not covered (5 model calls; the resolver escalates it, no adjudicator).

It prints, in one run:

1. one claim's wall time against its ideal: latency x (intake calls + max(policy calls, fraud
   calls)), counted from the server's log, plus the overhead, which is the same claim's wall
   time with the server answering at once (latency 0; median of `--repeats`);
2. `--claims` claims at concurrency 1, 4, 16 and 32 against ceil(N / c) x the critical path
   (the ideal of 1), with the CPU seconds the process used: CrewAI's Python work runs under one
   GIL, so N x (CPU seconds per claim) is a floor no concurrency gets under; then (2b) the same
   claims at 16 in flight in `--workers` processes: started for the batch (`run --workers`),
   and long-lived `claims-crew work` processes, already warm, taking them from the queue;
   then (2c) the `--workers` processes under a CLAIMS_CREW_MAX_RPM cap beside none, as a
   ratio, with the most requests the server saw in any of the cap's windows;
3. the shipped way (ClaimsCrew.review: intake, then policy and fraud side by side, each a crew
   of one task in its own thread) against two others, swapped in for this run only: policy and
   fraud one after the other (ClaimsCrew.crew(), CrewAI's sequential process, as claims ran
   before), and one crew with policy_task and fraud_task `async_execution` followed by the
   adjudicator as a ConditionalTask (never true here: these claims have no dispute). One claim
   and N claims at concurrency 16 each, as ratios to the shipped way.

Goals: one claim <= 1.15 x its ideal; N claims at concurrency 16 <= 1.25 x theirs. A missed goal
prints MISS; the benchmark only prints. Times are compared within one run, since the machine
may be shared and noisy.

    uv run python bench/provider.py
    uv run python bench/provider.py --latency 1 --claims 64
    uv run python bench/provider.py --small    # 2 claims, 0.05 s a call: CI's check
    uv run python bench/provider.py --cap --postgres   # only 2c, the workers on PostgreSQL

`--cap` runs only section 2c. `--postgres` puts the bench's store in a throwaway PostgreSQL
cluster (Debian's `postgresql` package, as the tests run it), where the workers count the cap
together in the store; without it the store is SQLite and each worker counts its share.

A claim that a timed batch did not review makes it exit non-zero at the end.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import logging
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The top level imports the standard library only; the rest is imported after the environment
# CrewAI reads at import is set.
if TYPE_CHECKING:
    from rich.console import Console

    from claims_crew.crew.crew import ClaimsCrew
    from claims_crew.run.context import RunContext
    from claims_crew.run.routine import BatchItem
    from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "config"
CONCURRENCIES = (1, 4, 16, 32)
# Every claim a timed batch failed to review, over the whole run.
FAILED: list[str] = []
GOAL_ONE = 1.15
GOAL_BATCH = 1.25
GOAL_CONCURRENCY = 16

Review = Callable[["ClaimsCrew", dict[str, Any]], None]


@dataclass(frozen=True)
class Run:
    """One batch: its wall time, the process's CPU seconds, and the server's log of it."""

    claims: int
    concurrency: int
    wall: float
    cpu: float
    calls: dict[str, int]  # agent -> requests the server answered
    overlapped: int  # claims whose policy and fraud calls were open at the same time
    failed: list[str]


def respond_for_water() -> Any:
    """The server's answers: the water claim's facts (and, asked the targeted question their
    conflict raises, null for the start date), a looked-up 4.2(b), a looked-up 7.1."""
    from tests.support.crew import FRAUD_EXCLUDED, POLICY_COVERED
    from tests.support.openai_server import ChatRequest, Reply
    from tests.support.provider import agent_of, look_up_then, water_intake

    policy = look_up_then("4.2(b)", POLICY_COVERED)
    fraud = look_up_then("7.1", FRAUD_EXCLUDED)

    def respond(request: ChatRequest) -> Reply:
        agent = agent_of(request)
        if agent == "intake":
            return water_intake(request)
        reply = policy if agent == "policy" else fraud
        return reply(request) if callable(reply) else reply

    return respond


class Bench:
    """Runs batches of fresh claim ids through the pipeline against one server."""

    def __init__(self, workdir: Path, server: OpenAIServer, settings: RunContext) -> None:
        self.workdir = workdir
        self.server = server
        self.settings = settings
        self._next = 0

    def ids(self, n: int) -> list[str]:
        """N claim ids not used before in this bench."""
        ids = [f"P-{self._next + i:04d}" for i in range(n)]
        self._next += n
        return ids

    def claims(self, n: int) -> list[Path]:
        from tests.support.provider import water_claims

        return water_claims(self.workdir / "inbox", *self.ids(n))

    def run(self, n: int, concurrency: int, latency: float) -> Run:
        from claims_crew.run.batch import run_batch
        from tests.support.provider import agent_of, claim_of

        paths = self.claims(n)
        ids = {p.stem for p in paths}
        self.server.latency_s = latency
        before = len(self.server.exchanges)
        cpu = time.process_time()
        started = time.perf_counter()
        items = run_batch(paths, self.settings, concurrency)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        log = [e for e in self.server.exchanges[before:] if claim_of(e.request) in ids]
        calls: dict[str, int] = {}
        for exchange in log:
            agent = agent_of(exchange.request)
            calls[agent] = calls.get(agent, 0) + 1
        overlapped = 0
        for claim_id in ids:
            mine = [e for e in log if claim_of(e.request) == claim_id]
            policy = [e for e in mine if agent_of(e.request) == "policy"]
            fraud = [e for e in mine if agent_of(e.request) == "fraud"]
            overlapped += any(p.overlaps(f) for p in policy for f in fraud)
        failed = [_why(i) for i in items if not i.ok]
        return Run(n, concurrency, wall, cpu, calls, overlapped, failed)

    def run_workers(self, n: int, concurrency: int, workers: int, latency: float) -> WorkersRun:
        """N claims in `workers` queue worker processes (run/processes.py, as `claims-crew run
        --workers`: ingest, then workers started for the batch drain the queue), each at
        `concurrency`: the wall time, the CPU of every process, and when the workers had begun
        as many claims as there are workers (a fresh interpreter imports CrewAI first)."""
        from claims_crew.run.ingest import ingest
        from claims_crew.run.processes import run_in_workers

        paths = self.claims(n)
        self.server.latency_s = latency
        began: list[float] = []
        cpu = _cpu_with_children()
        started = time.perf_counter()
        ingest(paths, self.settings.store)
        result = run_in_workers(
            paths,
            self.settings.store,
            CONFIG,
            concurrency,
            workers,
            on_start=lambda _path: began.append(time.perf_counter()),
        )
        wall = time.perf_counter() - started
        failed = [_why(i) for i in result.items if not i.ok]
        failed += [dead.describe() for dead in result.dead]
        failed += [f"{p.stem}: left for the next run" for p in result.left]
        first = min(workers, n)
        startup = sorted(began)[first - 1] - started if len(began) >= first else wall
        return WorkersRun(
            n, concurrency, workers, wall, _cpu_with_children() - cpu, startup, failed
        )


def _why(item: BatchItem) -> str:
    """A claim that was not reviewed, and why."""
    record = item.record
    return f"{item.path.stem}: {record.error.message if record and record.error else item.error}"


@dataclass(frozen=True)
class WorkersRun:
    """One batch in worker processes."""

    claims: int
    concurrency: int  # each worker's
    workers: int
    wall: float
    cpu: float  # this process and its workers
    startup: float  # until the workers had begun as many claims as there are workers
    failed: list[str]


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its children that have ended."""
    import resource

    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


# Section 2c's window: long beside a call's latency, short enough for a bench.
CAP_WINDOW_S = 5.0  # --cap-window


def most_in_any_window(times: list[float], window_s: float) -> int:
    """The most of these arrival times within `window_s` seconds of one another."""
    times = sorted(times)
    return max((sum(1 for t in times if s <= t < s + window_s) for s in times), default=0)


def capped_workers_table(
    runner: Bench,
    n: int,
    latency: float,
    workers: int,
    console: Console,
    window_s: float = CAP_WINDOW_S,
) -> None:
    """Section 2c: N claims in `workers` processes under CLAIMS_CREW_MAX_RPM beside the same
    without a cap, in one run. The cap lets about a quarter of the batch's calls through a
    window, so the capped batch takes some four windows; "most in a window" is counted from the
    scripted server's own log. On a SQLite store each worker gets its share of the cap
    (limits.rpm_share); on PostgreSQL (`--postgres`) they count it together in the store."""
    from rich.table import Table

    calls = 6 * n  # a water claim: intake, policy and fraud two calls each (section 1)
    cap = workers * math.ceil(calls / (4 * workers))
    shared = runner.settings.store.postgres
    engine = "PostgreSQL, counted together" if shared else "SQLite, shared out"
    table = Table(
        title=f"2c. {n} claims in {workers} processes, a cap of {cap} per "
        f"{window_s:g} s ({engine}) beside none (ratio: capped / uncapped)"
    )
    for column in ("cap", "wall s", "calls", "most in a window", "ideal s", "ratio"):
        table.add_column(column, justify="right")
    uncapped_wall = 0.0
    for label, limit in (("none", None), (str(cap), cap)):
        saved = {k: os.environ.get(k) for k in ("CLAIMS_CREW_MAX_RPM", "CLAIMS_CREW_RATE_WINDOW")}
        if limit is not None:
            os.environ["CLAIMS_CREW_MAX_RPM"] = str(limit)
            os.environ["CLAIMS_CREW_RATE_WINDOW"] = f"{window_s:g}"
        before = len(runner.server.requests)
        try:
            run = runner.run_workers(n, max(1, 16 // workers), workers, latency)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        FAILED.extend(run.failed)
        sent = [r.at for r in runner.server.requests[before:]]
        most = most_in_any_window(sent, window_s)
        if limit is None:
            uncapped_wall = run.wall
            table.add_row(label, f"{run.wall:.2f}", str(len(sent)), str(most), "", "1.00")
            continue
        ideal = (math.ceil(len(sent) / limit) - 1) * window_s
        table.add_row(
            label,
            f"{run.wall:.2f}",
            str(len(sent)),
            f"{most} (cap {limit})",
            f">= {ideal:.0f}",
            f"{run.wall / uncapped_wall:.2f}",
        )
    console.print(table)


def workers_table(
    runner: Bench,
    n: int,
    latency: float,
    critical: float,
    workers: int,
    console: Console,
    every_size: bool = True,
) -> None:
    """Section 2 again at concurrency 16: one process against `workers` processes sharing the
    store, in one run so the machine's noise is shared. Ideal: ceil(N / claims in flight) x the
    critical path.

    - `run --workers`: processes started for the batch, at the same claims in flight and at 16
      each; "start s" is until as many claims as workers had begun (a fresh interpreter imports
      CrewAI first).
    - `work`, warm: long-lived `claims-crew work` processes, as a team runs them, started and
      warmed before the batch (their start and warm-up, in brackets, is not in the ratio); the
      batch is ingested into the queue they take from, timed from the first ingest until the
      queue has finished every claim."""
    from rich.table import Table

    from claims_crew.policy.library import PolicyLibrary

    PolicyLibrary().open("HM-HOME-001")  # indexed where the workers look, before any timing
    c = GOAL_CONCURRENCY
    title = f"2b. {n} claims in worker processes (ideal: ceil(N / in flight) x {critical:.3f} s)"
    table = Table(title=title)
    columns = ("workers", "c each", "in flight", "wall s", "start s", "ideal s", "ratio")
    for column in (*columns, "ratio after start", "CPU s", ""):
        table.add_column(column, justify="right" if column else "left")
    single = runner.run(n, c, latency)
    health(single, console)
    ideal = math.ceil(n / c) * critical
    ratio = single.wall / ideal
    table.add_row(
        "1 (in-process)", str(c), str(c), f"{single.wall:.2f}", "-", f"{ideal:.2f}",
        f"{ratio:.2f}", "-", f"{single.cpu:.2f}", verdict(ratio, GOAL_BATCH),
    )  # fmt: skip
    # Each start of the processes costs their CrewAI import: a small run starts them once.
    for each in sorted({max(1, c // workers), c})[: None if every_size else 1]:
        run = runner.run_workers(n, each, workers, latency)
        not_reviewed(run.failed, console, "not reviewed")
        ideal = math.ceil(n / (each * workers)) * critical
        ratio = run.wall / ideal
        table.add_row(
            str(workers), str(each), str(each * workers), f"{run.wall:.2f}",
            f"{run.startup:.2f}", f"{ideal:.2f}", f"{ratio:.2f}",
            f"{(run.wall - run.startup) / ideal:.2f}", f"{run.cpu:.2f}",
            verdict(ratio, GOAL_BATCH) + f"; {run.wall / single.wall:.2f} x 1 process",
        )  # fmt: skip
    each = max(1, c // workers)
    run = warm_work_processes(runner, n, each, workers, latency)
    ideal = math.ceil(n / (each * workers)) * critical
    ratio = run.wall / ideal
    table.add_row(
        f"{workers} `work`, warm", str(each), str(each * workers), f"{run.wall:.2f}",
        f"({run.startup:.2f})", f"{ideal:.2f}", f"{ratio:.2f}", "-", f"{run.cpu:.2f}",
        verdict(ratio, GOAL_BATCH) + f"; {run.wall / single.wall:.2f} x 1 process",
    )  # fmt: skip
    console.print(table)
    not_reviewed(run.failed, console, "problem(s)")


def warm_work_processes(
    runner: Bench, n: int, concurrency: int, workers: int, latency: float
) -> WorkersRun:
    """N claims through `workers` long-lived `claims-crew work` processes on the bench's store:
    started, warmed on a batch of their own (every thread runs a claim), then given the N
    claims through the queue. The timed batch; its `startup` is the start and warm-up."""
    from tests.support.work_processes import (
        cpu_of,
        decided_once,
        runs_recorded,
        wait_until_polling,
        work_batch,
        work_command,
        work_processes,
    )

    store = runner.settings.store
    env = {
        **os.environ,
        "CLAIMS_CREW_DATABASE_URL": store.url.render_as_string(hide_password=False),
    }
    warm_ids = runner.ids(n)
    ids = runner.ids(n)
    folder = runner.workdir / "work"
    folder.mkdir()
    runs = runs_recorded(store)
    started = time.perf_counter()
    command = work_command(concurrency)
    with work_processes(command, env, workers, folder / "worker") as procs:
        wait_until_polling(store, procs, runs)
        runner.server.latency_s = latency / 10
        _, _, refused = work_batch(store, procs, folder / "warm", warm_ids)
        startup = time.perf_counter() - started
        runner.server.latency_s = latency
        cpu = cpu_of(procs)
        wall, _, more = work_batch(store, procs, folder / "inbox", ids)
        cpu = cpu_of(procs) - cpu
    problems = decided_once(store, [*warm_ids, *ids]) + [f"refused: {e}" for e in refused + more]
    return WorkersRun(n, concurrency, workers, wall, cpu, startup, problems)


# --- the other ways to run policy and fraud, swapped in for a comparison ---------------------


def one_after_the_other(claims_crew: ClaimsCrew, inputs: dict[str, Any]) -> None:
    """What claims ran before: the review tasks in CrewAI's sequential process."""
    claims_crew.crew().kickoff(inputs=inputs)


def async_tasks_crew(claims_crew: ClaimsCrew, inputs: dict[str, Any]) -> None:
    """One crew: intake, policy_task and fraud_task async, then a ConditionalTask adjudicator.

    The condition would run the resolver; these claims never reach the dispute rule, so it
    says no here, and the resolver runs where the pipeline runs it, after the crew."""
    from crewai import Process
    from crewai.tasks.conditional_task import ConditionalTask

    from claims_crew.crew.workarounds.kickoff_log import UnloggedCrew
    from claims_crew.crew.workarounds.strict_converter import StrictConverter
    from claims_crew.models import AdjudicatorAnswer
    from claims_crew.vocabulary import ADJUDICATE_TASK

    review = claims_crew.review_tasks()
    for task in review[1:]:
        task.async_execution = True
    adjudicate = ConditionalTask(
        config=claims_crew.tasks_config[ADJUDICATE_TASK],
        condition=lambda _output: False,
        context=[],
        output_pydantic=AdjudicatorAnswer,
        converter_cls=StrictConverter,
    )
    agents = list({id(t.agent): t.agent for t in [*review, adjudicate] if t.agent}.values())
    UnloggedCrew(  # as the shipped way's crews: no kickoff log to queue on
        agents=agents,
        tasks=[*review, adjudicate],
        process=Process.sequential,
        memory=False,
        verbose=False,
    ).kickoff(inputs=inputs)


@contextlib.contextmanager
def reviewing_with(review: Review | None) -> Iterator[None]:
    """ClaimsCrew.review replaced by `review` (None: the shipped one) within the block."""
    from claims_crew.crew.crew import ClaimsCrew

    if review is None:
        yield
        return
    shipped = ClaimsCrew.review
    ClaimsCrew.review = review  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        ClaimsCrew.review = shipped  # type: ignore[method-assign]


# --- printing --------------------------------------------------------------------------------


def verdict(ratio: float, goal: float) -> str:
    return (
        f"[green]ok[/] (goal <= {goal:g})" if ratio <= goal else f"[red]MISS[/] (goal <= {goal:g})"
    )


def health(run: Run, console: Console) -> None:
    not_reviewed(run.failed, console)


def not_reviewed(
    failed: Sequence[str], console: Console, what: str = "claim(s) not reviewed"
) -> None:
    """Print a batch's failures; they are kept in FAILED, and the run exits non-zero at the end:
    a batch that did not review its claims has times that mean nothing."""
    if failed:
        FAILED.extend(failed)
        console.print(f"[red]{len(failed)} {what}:[/] " + "; ".join(failed[:3]))


def median_run(bench: Bench, repeats: int, latency: float) -> tuple[float, list[Run]]:
    runs = [bench.run(1, 1, latency) for _ in range(repeats)]
    return statistics.median(r.wall for r in runs), runs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, metavar="S", help="per call")
    parser.add_argument("--claims", type=int, default=32, metavar="N", help="claims per batch")
    parser.add_argument("--repeats", type=int, default=5, help="single-claim runs per median")
    parser.add_argument(
        "--workers", type=int, default=4, metavar="W", help="processes in section 2b; 1: none"
    )
    parser.add_argument(
        "--small",
        action="store_true",
        help="2 claims, 0.05 s a call, 1 repeat, 2 worker processes started twice (CI's run)",
    )
    parser.add_argument("--cap", action="store_true", help="only section 2c: workers under a cap")
    parser.add_argument(
        "--cap-window",
        type=float,
        default=CAP_WINDOW_S,
        metavar="S",
        help="the cap's window in section 2c (CLAIMS_CREW_RATE_WINDOW)",
    )
    parser.add_argument(
        "--postgres", action="store_true", help="the store in a throwaway PostgreSQL cluster"
    )
    args = parser.parse_args(argv)
    if args.small:
        args.latency, args.claims, args.repeats, args.workers = 0.05, 2, 1, 2
    with tempfile.TemporaryDirectory(prefix="bench-provider-") as tmp:
        workdir = Path(tmp)
        os.environ.update(environment(workdir, ROOT))
        with database(args.postgres) as url:
            bench(
                max(1, args.claims),
                max(0.0, args.latency),
                max(1, args.repeats),
                workdir,
                workers=max(1, args.workers),
                every_size=not args.small,
                database_url=url,
                cap_only=args.cap,
                cap_window_s=max(1.0, args.cap_window),
            )
    if FAILED:
        raise SystemExit(f"{len(FAILED)} claim(s) not reviewed")


def scratch_folder(prefix: str) -> Path:
    """A new folder under the system's temporary folder, removed when this process exits.

    For a bench's child process, whose environment points into the folder until it ends (a
    `with` block would remove it while CrewAI's storage and the home still point there)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def environment(workdir: Path, root: Path) -> dict[str, str]:
    """The environment a bench run sets before CrewAI is imported: its home and CrewAI's storage
    in `workdir`, the policies of the checkout `root`, no telemetry, the scripted model."""
    return {
        "CLAIMS_CREW_HOME": str(workdir / "home"),
        "CREWAI_STORAGE_DIR": str(workdir / "crewai-storage"),
        "CLAIMS_CREW_POLICIES": str(root / "policies"),
        "CREWAI_DISABLE_TELEMETRY": "true",
        "OTEL_SDK_DISABLED": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "MODEL": "openai/gpt-4o-mini",
        "OPENAI_API_KEY": "sk-bench-not-a-real-key",
    }


@contextlib.contextmanager
def database(postgres: bool) -> Iterator[str | None]:
    """A fresh PostgreSQL database in a throwaway cluster for `--postgres`, else None (the
    bench's SQLite file)."""
    if not postgres:
        yield None
        return
    sys.path.insert(0, str(ROOT))
    from tests.support.postgres import find_bin_dir, fresh_database, throwaway_cluster

    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("--postgres: PostgreSQL is not installed (apt-get install postgresql)")
    with throwaway_cluster(bin_dir) as server, fresh_database(server) as url:
        yield url


def bench(
    n: int,
    latency: float,
    repeats: int,
    workdir: Path,
    workers: int = 4,
    every_size: bool = True,
    database_url: str | None = None,
    cap_only: bool = False,
    cap_window_s: float = CAP_WINDOW_S,
) -> None:
    sys.path.insert(0, str(ROOT))
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    from rich.console import Console
    from rich.table import Table

    from claims_crew.llms.select import default_llm_factory
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.run.context import build_context
    from claims_crew.store import Store
    from tests.support.openai_server import OpenAIServer

    console = Console() if sys.stdout.isatty() else Console(width=120)
    library = PolicyLibrary(root=ROOT / "policies", cache_dir=workdir / "policy-index")
    library.open("HM-HOME-001")  # the index is built here, before anything is timed
    with OpenAIServer(respond_for_water(), latency_s=0.0) as server:
        os.environ["MODEL_BASE_URL"] = server.base_url
        settings = build_context(
            library=library,
            llm_for=default_llm_factory(CONFIG),
            config_dir=CONFIG,
            store=Store(workdir / "claims.sqlite", url=database_url),
        )
        runner = Bench(workdir, server, settings)
        console.print(
            f"[dim]bench/provider.py: {server.base_url}, latency {latency:g} s a call, "
            f"{n} claims a batch, {os.cpu_count()} CPUs[/]"
        )
        health(runner.run(2, 2, 0.0), console)  # the first kickoff pays one-off costs
        if cap_only:
            capped_workers_table(runner, n, latency, max(2, workers), console, cap_window_s)
            return

        # 1. one claim
        overhead, zero_runs = median_run(runner, repeats, 0.0)
        cpu_per_claim = statistics.median(r.cpu for r in zero_runs)
        one, one_runs = median_run(runner, repeats, latency)
        for run in (*zero_runs, *one_runs):
            health(run, console)
        calls = one_runs[-1].calls
        path_calls = calls.get("intake", 0) + max(calls.get("policy", 0), calls.get("fraud", 0))
        critical = latency * path_calls + overhead
        table = Table(title=f"1. one claim (median of {repeats} runs)")
        for column in ("", "seconds", "note"):
            table.add_column(column)
        table.add_row(
            "model calls",
            "",
            f"intake {calls.get('intake', 0)}, policy {calls.get('policy', 0)}, "
            f"fraud {calls.get('fraud', 0)}; critical path {path_calls} calls",
        )
        table.add_row("overhead (latency 0)", f"{overhead:.3f}", f"CPU {cpu_per_claim:.3f} s")
        table.add_row("ideal", f"{critical:.3f}", f"{latency:g} x {path_calls} + overhead")
        overlapped = sum(r.overlapped for r in one_runs)
        table.add_row(
            "measured",
            f"{one:.3f}",
            f"{one / critical:.2f} x ideal {verdict(one / critical, GOAL_ONE)}; "
            f"policy and fraud overlapped in {overlapped}/{len(one_runs)} runs",
        )
        console.print(table)

        # 2. N claims at each concurrency
        table = Table(title=f"2. {n} claims (ideal: ceil(N / c) x {critical:.3f} s)")
        for column in ("concurrency", "wall s", "ideal s", "ratio", "CPU s", "GIL floor s", ""):
            table.add_column(column, justify="right" if column != "" else "left")
        batches: dict[int, Run] = {}
        for concurrency in CONCURRENCIES:
            run = runner.run(n, concurrency, latency)
            health(run, console)
            batches[concurrency] = run
            ideal = math.ceil(n / concurrency) * critical
            ratio = run.wall / ideal
            note = verdict(ratio, GOAL_BATCH) if concurrency == GOAL_CONCURRENCY else ""
            table.add_row(
                str(concurrency),
                f"{run.wall:.2f}",
                f"{ideal:.2f}",
                f"{ratio:.2f}",
                f"{run.cpu:.2f}",
                f"{n * cpu_per_claim:.2f}",
                note,
            )
        console.print(table)
        if workers > 1:
            workers_table(runner, n, latency, critical, workers, console, every_size)
            capped_workers_table(runner, n, latency, workers, console, cap_window_s)

        # 3. the shipped way against the others
        ways: dict[str, Review | None] = {
            "shipped: side by side (review)": None,
            "one after the other (crew())": one_after_the_other,
            "async tasks + ConditionalTask": async_tasks_crew,
        }
        table = Table(title="3. ways to run policy and fraud (ratio: way / shipped)")
        for column in ("way", "1 claim s", "ratio", f"{n} at c={GOAL_CONCURRENCY} s", "ratio"):
            table.add_column(column, justify="left" if column == "way" else "right")
        shipped: tuple[float, float] | None = None
        for name, review in ways.items():
            with reviewing_with(review):
                single, runs = median_run(runner, repeats, latency)
                batch = runner.run(n, GOAL_CONCURRENCY, latency)
            for run in (*runs, batch):
                health(run, console)
            if shipped is None:
                shipped = (single, batch.wall)
            table.add_row(
                name,
                f"{single:.3f}",
                f"{single / shipped[0]:.2f}",
                f"{batch.wall:.2f}",
                f"{batch.wall / shipped[1]:.2f}",
            )
        console.print(table)
        expected = (latency * sum(calls.values()) + overhead) / critical
        console.print(
            f"[dim]one after the other, the call counts predict {expected:.2f} x for one claim "
            f"({latency:g} x {sum(calls.values())} + overhead against the ideal)[/]"
        )


if __name__ == "__main__":
    main()
