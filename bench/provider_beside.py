"""Benchmark: bench/provider.py's goal batch (32 claims at concurrency 16 in one process) in two
checkouts, side by side in one run.

A change's effect on the batch is a few per cent, and the machine it is measured on may be
shared and noisy: two runs minutes apart differ by more than that. So this runs the batch in
this checkout and in `--base` (another checkout of the project, with its own `.venv`, e.g.
`git worktree add ../base main && (cd ../base && uv sync --locked)`), one after the other,
swapping which goes first every round, each in a fresh process of its own checkout's Python.
Each process times the batch as bench/provider.py does: against the scripted OpenAI server at
`--latency` a call, ideal = ceil(N / c) x (latency x the calls on a claim's critical path + one
claim's wall time with the server answering at once, median of 5). It prints every round's
ratio to the ideal for each checkout, their medians, and the median of this checkout's wall
time over the base's in the same round.

    uv run python bench/provider_beside.py --base ../base --rounds 4
    uv run python bench/provider_beside.py --small    # 2 claims, 0.05 s a call, this tree only

The child imports the checkout's own bench/provider.py (Bench, respond_for_water), so any
checkout whose bench has them can be the base. A batch with a claim not reviewed exits non-zero.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import math
import os
import statistics
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOAL_BATCH = 1.25
GOAL_CPU = 0.1  # our own CPU seconds a claim: the batch's, less the scripted server's
MARK = "BESIDE "  # the child's one line of results, among whatever else it prints


def child(tree: Path, claims: int, concurrency: int, latency: float) -> dict[str, Any]:
    """One batch in `tree`'s code (this process runs on its Python): the figures as a dict."""
    # The checkout's own code first, whichever environment it was installed into.
    sys.path[:0] = [str(tree / "src"), str(tree), str(tree / "bench")]
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    # The environment as this checkout's provider.py sets it (the base's may have no function
    # for it); its top level imports the standard library only.
    spec = importlib.util.spec_from_file_location("provider_here", ROOT / "bench" / "provider.py")
    assert spec is not None and spec.loader is not None
    here = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = here
    spec.loader.exec_module(here)
    workdir = here.scratch_folder("bench-beside-")
    os.environ.update(here.environment(workdir, tree))
    import provider  # the checkout's own bench/provider.py

    from claims_crew.llms.select import default_llm_factory
    from claims_crew.policy.library import PolicyLibrary

    try:  # a run's context is run/context.py; a checkout from before calls it run/settings.py
        from claims_crew.run import context as run_context

        build = run_context.build_context
    except ImportError:
        from claims_crew.run import settings as run_settings

        build = getattr(run_settings, "build_settings", None) or run_settings.Settings
    from claims_crew.store import Store
    from tests.support import openai_server
    from tests.support.openai_server import OpenAIServer

    server_cpu = _count_server_cpu(openai_server)
    library = PolicyLibrary(root=tree / "policies", cache_dir=workdir / "policy-index")
    library.open("HM-HOME-001")  # the index is built before anything is timed
    with OpenAIServer(provider.respond_for_water(), latency_s=0.0) as server:
        os.environ["MODEL_BASE_URL"] = server.base_url
        # A run's context as each checkout builds it (above): its build function where it has
        # one, else the class that loaded what it was not given.
        settings = build(
            library=library,
            llm_for=default_llm_factory(tree / "config"),
            config_dir=tree / "config",
            store=Store(workdir / "claims.sqlite"),
        )
        bench = provider.Bench(workdir, server, settings)
        bench.run(2, 2, 0.0)  # the first kickoff pays one-off costs
        overhead = statistics.median(bench.run(1, 1, 0.0).wall for _ in range(5))
        server_before = server_cpu()
        run = bench.run(claims, concurrency, latency)
        server = server_cpu() - server_before
    per_claim = {agent: n / claims for agent, n in run.calls.items()}
    path_calls = per_claim.get("intake", 0) + max(
        per_claim.get("policy", 0), per_claim.get("fraud", 0)
    )
    ideal = math.ceil(claims / concurrency) * (latency * path_calls + overhead)
    return {
        "wall": run.wall,
        "cpu": run.cpu,
        "overhead": overhead,
        "ideal": ideal,
        "ratio": run.wall / ideal,
        "server_cpu": server,
        "our_cpu_per_claim": (run.cpu - server) / claims,
        "failed": run.failed,
    }


def _count_server_cpu(server_module: Any) -> Callable[[], float]:
    """The scripted server's CPU seconds so far: each request is answered in a thread of its
    own (ThreadingHTTPServer), whose CPU time is added up as it ends; the batch's CPU less this
    is our own (the crew, the tools, the rules, the store)."""
    total = [0.0]
    lock = threading.Lock()
    listener = server_module._Listener
    answer = listener.process_request_thread

    def timed(self: Any, request: Any, client_address: Any) -> None:
        started = time.thread_time()
        try:
            answer(self, request, client_address)
        finally:
            with lock:
                total[0] += time.thread_time() - started

    listener.process_request_thread = timed

    def so_far() -> float:
        with lock:
            return total[0]

    return so_far


def one_batch(
    tree: Path, claims: int, concurrency: int, latency: float, timeout_s: float
) -> dict[str, Any]:
    """The batch in a fresh process on `tree`'s own Python."""
    python = tree / ".venv" / "bin" / "python"
    command = [
        str(python if python.exists() else sys.executable),
        str(Path(__file__).resolve()),
        "--child",
        str(tree),
        "--claims",
        str(claims),
        "--concurrency",
        str(concurrency),
        "--latency",
        str(latency),
    ]
    return figures_of(command, tree, f"{tree}: the batch", timeout_s)


def figures_of(command: list[str], cwd: Path, what: str, timeout_s: float | None) -> dict[str, Any]:
    """Run a bench's child `command` and return the figures it printed on its MARK line (the
    last, among whatever else it prints); exit naming `what` if it failed or printed none."""
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout_s, check=False
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{what} did not finish:\n{done.stderr[-3000:]}")
    return dict(json.loads(lines[-1][len(MARK) :]))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base", type=Path, help="the other checkout (none: this one only)")
    parser.add_argument("--rounds", type=int, default=4, help="batches in each checkout")
    parser.add_argument("--claims", type=int, default=32, metavar="N")
    parser.add_argument("--concurrency", type=int, default=16, metavar="C")
    parser.add_argument("--latency", type=float, default=0.5, metavar="S", help="per call")
    parser.add_argument("--small", action="store_true", help="2 claims, 0.05 s, 1 round (CI)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.small:
        args.claims, args.concurrency, args.latency, args.rounds = 2, 2, 0.05, 1
    if args.child is not None:
        figures = child(args.child, args.claims, args.concurrency, args.latency)
        print(MARK + json.dumps(figures), flush=True)
        return
    trees = {"this": ROOT}
    if args.base is not None:
        trees["base"] = args.base.resolve()
    print(
        f"bench/provider_beside.py: {args.claims} claims at concurrency {args.concurrency}, "
        f"{args.latency:g} s a call, {args.rounds} round(s); "
        + ", ".join(f"{name} = {tree}" for name, tree in trees.items()),
        flush=True,
    )
    timeout_s = 120 + 20 * math.ceil(args.claims / args.concurrency) * (1 + 4 * args.latency)
    ratios: dict[str, list[float]] = {name: [] for name in trees}
    ours: dict[str, list[float]] = {name: [] for name in trees}
    walls: list[float] = []
    failed: list[str] = []
    for round_ in range(max(1, args.rounds)):
        order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
        figures = {
            name: one_batch(trees[name], args.claims, args.concurrency, args.latency, timeout_s)
            for name in order
        }
        for name in order:
            f = figures[name]
            ratios[name].append(f["ratio"])
            ours[name].append(f["our_cpu_per_claim"])
            failed += [f"{name}: {why}" for why in f["failed"]]
            print(
                f"round {round_ + 1} {name:>4}: wall {f['wall']:.2f} s, ideal {f['ideal']:.2f} s "
                f"(one claim's overhead {f['overhead']:.3f} s), ratio {f['ratio']:.3f}, "
                f"CPU {f['cpu']:.2f} s, the server's {f['server_cpu']:.2f} s, ours a claim "
                f"{f['our_cpu_per_claim']:.3f} s",
                flush=True,
            )
        if "base" in figures:
            walls.append(figures["this"]["wall"] / figures["base"]["wall"])
    for name, values in ratios.items():
        mark = "ok" if statistics.median(values) <= GOAL_BATCH else "MISS"
        print(
            f"{name:>4}: ratio to the ideal, median {statistics.median(values):.3f} "
            f"({', '.join(f'{v:.3f}' for v in values)}); {mark} (goal <= {GOAL_BATCH:g}); "
            f"our CPU a claim, median {statistics.median(ours[name]):.3f} s "
            f"({'ok' if statistics.median(ours[name]) <= GOAL_CPU else 'MISS'}, "
            f"goal <= {GOAL_CPU:g})"
        )
    if walls:
        print(
            f"this / base wall time, same round: median {statistics.median(walls):.3f} "
            f"({', '.join(f'{w:.3f}' for w in walls)})"
        )
    if failed:
        raise SystemExit(f"{len(failed)} claim(s) not reviewed: " + "; ".join(failed[:3]))


if __name__ == "__main__":
    main()
