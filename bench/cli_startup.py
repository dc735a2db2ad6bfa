"""Start-up time of the tuning commands, against a bare interpreter, in the same run.

    uv run python bench/cli_startup.py [--runs 7]
    uv run python bench/cli_startup.py --small    # one run each: CI's check that it runs

Each command runs as a fresh process, as a person would type it; the median wall time of each
is printed in ms with its ratio to `python -c pass`. `import crewai` is timed too, to show what
`config check` saves by never importing it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def median_ms(argv: list[str], runs: int) -> float:
    env = {**os.environ, "CREWAI_DISABLE_TELEMETRY": "true", "OTEL_SDK_DISABLED": "true"}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


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
        "python -c 'import crewai'": [sys.executable, "-c", "import crewai"],
    }
    base = None
    print(f"median of {args.runs} runs, {os.cpu_count()} CPUs")
    for label, argv in commands.items():
        ms = median_ms(argv, args.runs)
        base = base or ms
        print(f"{label:<34} {ms:8.0f} ms  {ms / base:5.1f}x")


if __name__ == "__main__":
    main()
