"""Start-up time of the commands people type, against a bare interpreter, in the same run.

    uv run python bench/cli_startup.py [--runs 7]
    uv run python bench/cli_startup.py --small    # one run each: CI's check that it runs

Each command runs as a fresh process, as a person would type it, twice over:

- with a warm bytecode cache (Python's usual case: each module compiled once, then read back);
- with no bytecode at all, as where PYTHONDONTWRITEBYTECODE is set (some CI and container
  images) and nothing was compiled at install: every process compiles what it imports.

The median wall time of each is printed in ms, with its ratio to `python -c pass` under the same
condition. `import crewai` is timed too: what `--help`, `config check` and `review list` save by
never importing it. Both conditions keep their bytecode in a folder of their own
(PYTHONPYCACHEPREFIX), so the environment's own files are never written.

Without --small it also compiles the whole environment once, as uv's `compile-bytecode = true`
does at install, and says after how many starts of `import crewai` that pays for itself where
PYTHONDONTWRITEBYTECODE is set. `review list` reads a store made for the bench in a temporary
CLAIMS_CREW_HOME.
"""

from __future__ import annotations

import argparse
import os
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


def median_ms(argv: list[str], runs: int, env: dict[str, str]) -> float:
    # One run first, not timed: it writes the warm cache, the store and the policy index.
    subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


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
        warm = condition_env(folder / "warm", folder / "home", write=True)
        cold = condition_env(folder / "none", folder / "home", write=False)
        print(f"median of {args.runs} runs, {os.cpu_count()} CPUs")
        print(f"{'':<34} {'warm bytecode cache':>22} {'no bytecode':>20}")
        base: dict[str, float] = {}
        crewai: dict[str, float] = {}
        for label, argv in commands.items():
            cells = []
            for name, env in (("warm", warm), ("none", cold)):
                ms = median_ms(argv, args.runs, env)
                base.setdefault(name, ms)
                if "crewai" in label:
                    crewai[name] = ms
                cells.append(f"{ms:8.0f} ms {ms / base[name]:6.1f}x")
            print(f"{label:<34} {cells[0]:>22} {cells[1]:>20}")
        if args.small:
            return
        files, seconds = compile_cost(folder / "install")
        saved = crewai["none"] - crewai["warm"]
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
