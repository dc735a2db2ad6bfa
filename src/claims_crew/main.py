"""`crewai run` enters here (the `run_crew` script).

What runs today is the first stage of the claim flow: every policy in policies/index.yaml is
checked and indexed, so agents and the resolver can cite and re-read its clauses. The crew
itself (intake, policy and fraud agents over claims/inbox/) is not built yet; until it is, this
says so instead of pretending to review claims.

`crewai run` exits 0 even when the script fails, so failures are also printed plainly.
"""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.table import Table

from claims_crew.errors import ClaimsCrewError, PolicyError
from claims_crew.policy.library import PolicyLibrary


def index_policies(console: Console) -> int:
    """Index every policy in the library; return how many failed."""
    library = PolicyLibrary()
    table = Table(title=f"Policy library: {library.root}")
    for column in ("policy", "product", "in force", "pages", "clauses", "status"):
        table.add_column(column)
    failed = 0
    for policy_id, entry in sorted(library.entries.items()):
        started = time.perf_counter()
        in_force = f"{entry.in_force_from} – {entry.in_force_to or 'open'}"
        try:
            doc = library.open(policy_id)
        except PolicyError as exc:
            failed += 1
            table.add_row(
                policy_id,
                entry.product,
                in_force,
                "-",
                "-",
                f"[red]{exc.code}[/red]: {exc.message}",
            )
            continue
        table.add_row(
            policy_id,
            entry.product,
            in_force,
            str(doc.page_count),
            str(len(doc.clauses)),
            f"ok ({time.perf_counter() - started:.2f} s)",
        )
    console.print(table)
    return failed


def run() -> None:
    console = Console()
    try:
        failed = index_policies(console)
    except ClaimsCrewError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    console.print(
        "The review crew (intake, policy and fraud agents over claims/inbox/) is not built yet; "
        "only the policy library stage ran."
    )
    if failed:
        console.print(f"[red]{failed} policy file(s) could not be indexed.[/red]")
        sys.exit(1)
