"""`crewai run` enters here (the `run_crew` script): review every new claim in claims/inbox/.

`crewai run` accepts no inputs and exits 0 even when the script fails, so run() finds the inbox
itself, prints every failure plainly, and exits non-zero when any claim failed.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

from claims_crew import paths
from claims_crew.errors import ClaimsCrewError


def run() -> None:
    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
    os.environ.setdefault("OTEL_SDK_DISABLED", "true")
    # CrewAI keeps task outputs in a SQLite file of its own; keep it with the project's data.
    os.environ.setdefault("CREWAI_STORAGE_DIR", str(paths.home() / "crewai"))
    from claims_crew.cli.run import default_concurrency, review_inbox

    console = Console()
    try:
        failed = review_inbox(paths.inbox_dir(), default_concurrency(), console)
    except ClaimsCrewError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    if failed:
        console.print(f"[red]{failed} claim(s) failed; see the table above.[/red]")
        sys.exit(1)
