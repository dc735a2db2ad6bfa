"""Start-up time of the commands people type, against a bare interpreter, in the same run.

    uv run python bench/cli_startup.py [--runs 7]
    uv run python bench/cli_startup.py --small    # one run each: CI's check that it runs
    uv run python bench/cli_startup.py --before /tmp/main/src   # another checkout, in turn

Each command runs as a fresh process, as a person would type it, twice over:

- with a warm bytecode cache (Python's usual case: each module compiled once, then read back);
- with no bytecode at all, as where PYTHONDONTWRITEBYTECODE is set (some CI and container
  images) and nothing was compiled at install: every process compiles what it imports.

The median wall time of each is printed in ms, with its ratio to `python -c pass` under the same
condition. `import crewai` is timed too: what `--help`, `config check` and `review list` save by
never importing it. Both conditions keep their bytecode in a folder of their own
(PYTHONPYCACHEPREFIX), so the environment's own files are never written.

It then times the garbage collector's share of a command's life: a process that imports CrewAI,
reviews a few claims (through bench/provider.py's scripted OpenAI server, answering at once),
times one full collection, then exits, two ways taken in turn: Python's own collection, and
claims-crew's (run/collector.py: what the process loaded is frozen before its first claim, and
the last pass at exit is skipped). Each way's CPU (user + system, with the children it waited
for), wall time and full pass, medians, and the ratios.

Without --small it also compiles the whole environment once, as uv's `compile-bytecode = true`
does at install, and says after how many starts of `import crewai` that pays for itself where
PYTHONDONTWRITEBYTECODE is set. `review list` reads a store made for the bench in a temporary
CLAIMS_CREW_HOME.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def condition_env(cache: Path, home: Path, write: bool) -> dict[str, str]:
    """The environment of one condition: its own bytecode folder, written to or not."""
    env = {
        **os.environ,
        "CREWAI_DISABLE_TELEMETRY": "true",
        "OTEL_SDK_DISABLED": "true",
        "CLAIMS_CREW_HOME": str(home),
        "PYTHONPYCACHEPREFIX": str(cache),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def medians_ms(argv: list[str], envs: list[dict[str, str]], runs: int) -> list[float]:
    """The median wall time of `argv` under each environment, the runs taken in turn so that a
    change in the machine's load falls on all of them alike."""
    for env in envs:  # one run each first, not timed: the cache, the store, the policy index
        subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
    times: list[list[float]] = [[] for _ in envs]
    for _ in range(runs):
        for env, kept in zip(envs, times, strict=True):
            start = time.perf_counter()
            subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
            kept.append((time.perf_counter() - start) * 1000)
    return [statistics.median(kept) for kept in times]


# One command's process: CrewAI imported, `claims` water claims reviewed, one full collection
# timed (printed), then the exit. "ours": the entry points' first line (run/collector.py) runs
# first, as in the CLI, and the batch freezes what is loaded; "python": neither.
ENDING = """
import gc, os, sys, time
from pathlib import Path
from claims_crew.run import collector
if sys.argv[1] == "ours":
    collector.end_without_final_collection()
else:
    collector.freeze_what_is_loaded = lambda: None
root = Path(sys.argv[2])
sys.path[:0] = [str(root), str(root / "bench")]
import provider
workdir = provider.scratch_folder("bench-ending-")
os.environ.update(provider.environment(workdir, root))
from claims_crew.llms.select import default_llm_factory
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.context import build_context
from claims_crew.store import Store
from tests.support.openai_server import OpenAIServer
with OpenAIServer(provider.respond_for_water(), latency_s=0.0) as server:
    os.environ["MODEL_BASE_URL"] = server.base_url
    context = build_context(
        library=PolicyLibrary(root=root / "policies", cache_dir=workdir / "index"),
        llm_for=default_llm_factory(root / "config"),
        config_dir=root / "config",
        store=Store(workdir / "claims.sqlite"),
    )
    failed = provider.Bench(workdir, server, context).run(int(sys.argv[3]), 2, 0.0).failed
    assert not failed, failed
start = time.perf_counter()
gc.collect()
print(time.perf_counter() - start)
"""


def ending_costs(claims: int, runs: int) -> dict[str, tuple[float, float, float]]:
    """The median CPU, wall and full-pass seconds of ENDING's process with Python's own
    collection ("python") and with claims-crew's ("ours"), the runs taken in turn. A process's
    CPU is what the bench's reaped children used across it (user + system): the process, and
    the children it waited for."""
    kept: dict[str, list[tuple[float, float, float]]] = {"python": [], "ours": []}
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for _ in range(runs):
        for way, found in kept.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", ENDING, way, str(ROOT), str(claims)],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0:
                raise SystemExit(f"the ending bench's process failed:\n{done.stderr}")
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            found.append((cpu, wall, float(done.stdout.split()[-1])))
    return {
        way: tuple(statistics.median(figures) for figures in zip(*found, strict=True))
        for way, found in kept.items()
    }


def compile_cost(prefix: Path) -> tuple[int, float]:
    """Files and wall seconds to compile every module of the environment, on every CPU, as
    uv's compile-bytecode does at install (into `prefix`, not the environment)."""
    site = sysconfig.get_paths()["purelib"]
    files = sum(1 for _ in Path(site).rglob("*.py"))
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "-j", "0", site],
        env=env,
        check=False,  # a few test files in packages do not compile; compileall goes on
        capture_output=True,
    )
    return files, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--small", action="store_true", help="one run each (CI's run)")
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout's src/ (e.g. main's, from git archive): its commands are timed "
        "in turn with this one's, in the same run",
    )
    args = parser.parse_args()
    if args.small:
        args.runs = 1
    cli = str(BIN / "claims-crew")
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "claims-crew --help": [cli, "--help"],
        "claims-crew config check": [cli, "config", "check"],
        "claims-crew config check --json": [cli, "config", "check", "--json"],
        "claims-crew review list": [cli, "review", "list"],
        "python -c 'import crewai'": [sys.executable, "-c", "import crewai"],
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        conditions = {
            "warm bytecode cache": condition_env(folder / "warm", folder / "home", write=True),
            "no bytecode": condition_env(folder / "none", folder / "home", write=False),
        }
        codes: dict[str, dict[str, str]] = {"": {}}
        if args.before is not None:  # the other checkout's package is found first
            codes = {"before": {"PYTHONPATH": str(args.before)}, "after": {}}
        envs = [{**env, **extra} for env in conditions.values() for extra in codes.values()]
        print(f"median of {args.runs} runs, {os.cpu_count()} CPUs; ratios to python -c pass")
        heads = [f"{c} {k}".strip() for c in conditions for k in codes]
        print(f"{'':<32}" + "".join(f"{h:>26}" for h in heads))
        base: list[float] = []
        crewai: list[float] = []
        for label, argv in commands.items():
            found = medians_ms(argv, envs, args.runs)
            base = base or found
            crewai = found if "crewai" in label else crewai
            cells = [f"{ms:8.0f} ms {ms / b:6.1f}x" for ms, b in zip(found, base, strict=True)]
            print(f"{label:<32}" + "".join(f"{c:>26}" for c in cells))
        claims = 2 if args.small else 8
        costs = ending_costs(claims, args.runs)
        (py_cpu, py_wall, py_pass), (cpu, wall, full) = costs["python"], costs["ours"]
        print(
            f"a process that imports CrewAI, reviews {claims} claims, times one full collection "
            f"and exits (median of {args.runs}): Python's own collection {py_cpu:.2f} s CPU, "
            f"{py_wall:.2f} s wall, a full pass {py_pass:.3f} s; claims-crew's "
            f"(run/collector.py) {cpu:.2f} s CPU, {wall:.2f} s wall, a full pass {full:.3f} s; "
            f"claims-crew's / Python's: CPU {cpu / py_cpu:.3f}, wall {wall / py_wall:.3f}, "
            f"a full pass {full / py_pass:.3f}"
        )
        if args.small:
            return
        files, seconds = compile_cost(folder / "install")
        saved = crewai[-1] - crewai[len(codes) - 1]  # the last code: no bytecode, then warm
        print(
            f"compiling the environment at install (compile-bytecode): {files} modules, "
            f"{seconds:.1f} s wall on {os.cpu_count()} CPUs"
        )
        print(
            f"`import crewai` with bytecode saves {saved:.0f} ms a process where "
            "PYTHONDONTWRITEBYTECODE is set: the install-time compile pays for itself after "
            f"{seconds * 1000 / max(saved, 1):.1f} such starts"
        )


if __name__ == "__main__":
    main()
