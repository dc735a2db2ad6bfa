"""Benchmark: where one claim's CPU goes, by part, on bench/provider.py's scripted provider path.

A batch of water claims (bench/provider.py's) runs through the real crew against the scripted
OpenAI server answering at once, after a warm-up batch, under cProfile in every thread, each
thread timed by its own CPU clock (time.thread_time). A function's own time is its part's: our
packages (tools, resolver, store, ...), CrewAI's (its flow engine, event bus, prompts and
converter, agents, ...), the OpenAI client, SQLAlchemy and sqlite3 (the store), the scripted
server (its http.server threads). The standard library's and builtins' own time goes up to
whoever called them, shared by call time, so `json.dumps` under CrewAI's prompts counts as
the prompts'. The profiler slows the Python it watches (every call is timed), so the shares
are what matters, not the seconds; bench/provider_beside.py gives the CPU per claim unprofiled.

    uv run python bench/claim_profile.py               # 16 claims at concurrency 4
    uv run python bench/claim_profile.py --small       # 2 claims at 2 (CI)
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import logging
import os
import pstats
import sys
import threading
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Where a function's file lies, and the part it counts toward: the first match wins.
PARTS = [
    ("tests/support/openai_server", "the scripted server"),
    ("http/server", "the scripted server"),
    ("socketserver", "the scripted server"),
    ("email/", "the scripted server"),
    ("claims_crew/resolver", "our resolver"),
    ("claims_crew/tools", "our tools"),
    ("claims_crew/policy", "our policy library"),
    ("claims_crew/store", "the store (ours, SQLAlchemy, sqlite3)"),
    ("sqlalchemy", "the store (ours, SQLAlchemy, sqlite3)"),
    ("sqlite3", "the store (ours, SQLAlchemy, sqlite3)"),
    ("psycopg", "the store (ours, SQLAlchemy, sqlite3)"),
    ("claims_crew/crew", "our crew construction, ledger, workarounds"),
    ("claims_crew/schema_cache", "our crew construction, ledger, workarounds"),
    ("claims_crew/", "our routine, llms and the rest"),
    ("crewai/flow", "CrewAI's flow engine (agent executor)"),
    ("crewai/agents", "CrewAI's flow engine (agent executor)"),
    ("crewai/events", "CrewAI's event bus"),
    ("crewai/utilities", "CrewAI's prompts, converter, schemas"),
    ("crewai/project", "CrewAI's crew construction from YAML"),
    ("crewai/", "CrewAI's agents, tasks, crews, LLM calls"),
    ("openai/", "the OpenAI client (openai, httpx)"),
    ("httpx", "the OpenAI client (openai, httpx)"),
    ("httpcore", "the OpenAI client (openai, httpx)"),
    ("h11", "the OpenAI client (openai, httpx)"),
]
Func = tuple[str, int, str]


def part_of(func: Func) -> str | None:
    where = func[0].replace("\\", "/")
    if where == "~" and "sqlite3" in func[2]:  # the driver's own C methods
        return "the store (ours, SQLAlchemy, sqlite3)"
    return next((part for key, part in PARTS if key in where), None)


def by_part(stats: pstats.Stats) -> dict[str, float]:
    """Each function's own CPU time, on its part; the rest (the standard library, builtins,
    pydantic) passed up to its callers in proportion to the time each call took."""
    table: dict[Func, Any] = stats.stats  # type: ignore[attr-defined]
    parts: collections.Counter[str] = collections.Counter()
    pending: dict[Func, float] = {func: row[2] for func, row in table.items()}
    for _ in range(40):  # deep enough for any chain of library calls; what is left is shown
        passed: collections.Counter[Func] = collections.Counter()
        for func, seconds in pending.items():
            part = part_of(func)
            callers = table[func][4]
            weight = sum(edge[3] for edge in callers.values())
            if part is not None or not callers or weight <= 0:
                parts[part or "the rest (threads' own start)"] += seconds
                continue
            for caller, edge in callers.items():
                passed[caller] += seconds * edge[3] / weight
        pending = dict(passed)
    parts["the rest (threads' own start)"] += sum(pending.values())
    return dict(parts)


def top_functions(stats: pstats.Stats, key: str, count: int) -> list[str]:
    """The `count` functions first by `key` ("tottime": own time, "cumtime": with callees),
    one line each: own seconds, cumulative seconds, calls, where."""
    table: dict[Func, Any] = stats.stats  # type: ignore[attr-defined]
    column = {"tottime": 2, "cumtime": 3}[key]
    rows = sorted(table.items(), key=lambda item: -item[1][column])[:count]
    lines = []
    for (where, line, name), row in rows:
        short = where.split("site-packages/")[-1].split("claims-crew/")[-1]
        lines.append(f"{row[2]:8.3f} {row[3]:8.3f} {row[1]:8d}  {short}:{line}({name})")
    return lines


def profile_batch(claims: int, concurrency: int) -> tuple[pstats.Stats, float, int]:
    """One profiled batch's statistics, its CPU seconds unprofiled beforehand (a batch the
    same size), and the claims not reviewed."""
    sys.path[:0] = [str(ROOT / "src"), str(ROOT), str(ROOT / "bench")]
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    import provider

    workdir = provider.scratch_folder("bench-claim-profile-")
    os.environ.update(provider.environment(workdir, ROOT))
    from claims_crew.llms.select import default_llm_factory
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.run.context import build_context
    from claims_crew.store import Store
    from tests.support.openai_server import OpenAIServer

    library = PolicyLibrary(root=ROOT / "policies", cache_dir=workdir / "policy-index")
    library.open("HM-HOME-001")
    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()
    plain_run = threading.Thread.run

    def profiled_run(thread: threading.Thread) -> None:
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        try:
            plain_run(thread)
        finally:
            profile.disable()
            with lock:
                profiles.append(profile)

    with OpenAIServer(provider.respond_for_water(), latency_s=0.0) as server:
        os.environ["MODEL_BASE_URL"] = server.base_url
        context = build_context(
            library=library,
            llm_for=default_llm_factory(ROOT / "config"),
            config_dir=ROOT / "config",
            store=Store(workdir / "claims.sqlite"),
        )
        bench = provider.Bench(workdir, server, context)
        bench.run(2, 2, 0.0)  # the first kickoff pays one-off costs
        unprofiled = bench.run(claims, concurrency, 0.0).cpu
        main = cProfile.Profile(time.thread_time)
        threading.Thread.run = profiled_run  # type: ignore[method-assign]
        main.enable()
        try:
            run = bench.run(claims, concurrency, 0.0)
        finally:
            main.disable()
            threading.Thread.run = plain_run  # type: ignore[method-assign]
    stats = pstats.Stats(main)
    for profile in profiles:
        stats.add(profile)
    return stats, unprofiled, len(run.failed)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--claims", type=int, default=16, metavar="N")
    parser.add_argument("--concurrency", type=int, default=4, metavar="C")
    parser.add_argument("--small", action="store_true", help="2 claims at 2 (CI)")
    parser.add_argument(
        "--top", type=int, default=0, metavar="N", help="also list the first N functions"
    )
    args = parser.parse_args(argv)
    if args.small:
        args.claims, args.concurrency = 2, 2
    stats, unprofiled, failed = profile_batch(args.claims, args.concurrency)
    parts = by_part(stats)
    total = sum(parts.values())
    print(
        f"bench/claim_profile.py: {args.claims} claims at concurrency {args.concurrency}, the "
        f"scripted server answering at once; unprofiled CPU {unprofiled / args.claims:.3f} s "
        f"a claim (the server's included); profiled {total / args.claims:.3f} s a claim, by part:"
    )
    for part, seconds in sorted(parts.items(), key=lambda item: -item[1]):
        print(f"  {100 * seconds / total:5.1f}%  {seconds / args.claims:.4f} s  {part}")
    for key, title in (("tottime", "own time"), ("cumtime", "cumulative time")):
        if args.top:
            print(f"first {args.top} by {title} (own s, cumulative s, calls; the batch's):")
            print("\n".join(f"  {line}" for line in top_functions(stats, key, args.top)))
    if failed:
        raise SystemExit(f"{failed} claim(s) not reviewed")


if __name__ == "__main__":
    main()
