"""`claims-crew requeue ID`: a claim parked after its reviews failed too often, pending again.

A claim whose review keeps failing with a fault of its own is parked (store/failures.py): no
worker, run or ingest of the same file takes it again, so it stops costing model calls. Once a
person has looked (the claim's log names the traceback), this puts it back in the queue with its
failures forgotten, and names the OS user who did so on its work item. A claim that is not
parked is refused with exit 3: there is nothing to re-queue.
"""

from __future__ import annotations

import click
from rich.console import Console

from claims_crew.cli._output import emit_json, json_option, reports_errors
from claims_crew.cli.acting import os_user
from claims_crew.cli.safe_text import plain
from claims_crew.errors import NotFound


@click.command("requeue")
@click.argument("claim_id")
@json_option
@reports_errors
def requeue_command(claim_id: str, as_json: bool) -> None:
    """Queue a claim parked after failed reviews again, for the next worker or run."""
    from claims_crew.store import Store

    parked = Store().requeue(claim_id, actor=f"cli:{os_user()}")
    if parked is None:
        raise NotFound(f"claim {claim_id} is not parked; only a parked claim is re-queued")
    if as_json:
        emit_json({"requeued": claim_id, "failures": parked.failures, "reasons": parked.reasons})
        return
    console = Console()
    console.print(
        plain(f"{claim_id} is pending again; it had failed {parked.failures} time(s):"),
        soft_wrap=True,
    )
    for reason in parked.reasons:
        console.print(plain(f"  {reason}"), soft_wrap=True)
