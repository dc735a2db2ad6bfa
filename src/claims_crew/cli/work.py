"""`claims-crew ingest INBOX` and `claims-crew work`: claims into the store, and workers on any
machine taking them from it (claims_crew.run.ingest, claims_crew.run.worker).

`ingest` prints one row per claim file (queued, already queued or decided, or refused and why)
and exits 1 when a file was refused, as `run` does. `work` reviews what the queue holds, with
the progress display of `run`, until the queue is empty (`--until-empty`) or it is told to stop
(SIGTERM, Ctrl-C): then it takes nothing more, finishes the claims in hand, prints its table and
exits, 1 when a claim it reviewed failed.

CrewAI is imported inside the commands, as in run.py.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.text import Text

from claims_crew.cli._output import EXIT_FAILED, emit_json, fail_with, json_option
from claims_crew.cli.claim_lines import claims_table, failure_reasons, failures_said, notes_text
from claims_crew.cli.config_first import (
    config_dir_option,
    refuse_a_broken_config,
    use_config_dir,
)
from claims_crew.cli.progress import BatchProgress
from claims_crew.cli.run import (
    _escalations,
    checked_settings,
    concurrency_option,
    default_concurrency,
    leave,
)
from claims_crew.cli.safe_text import clean, markup, plain
from claims_crew.cli.stopping import on_stop_signals
from claims_crew.cli.tables import Table
from claims_crew.errors import ClaimsCrewError
from claims_crew.settings import keep_crewai_at_home

if TYPE_CHECKING:
    from claims_crew.run.ingest import Ingested
    from claims_crew.run.worker import Worker

# How each ingest result reads in the table.
SAID = {
    "queued": "queued",
    "already_queued": "already queued",
    "in_progress": "under review by a worker",
    "decided": "already decided: not queued",
    "changed_after_decision": "changed after its decision: not queued",
    "parked": "parked: its reviews failed too often; not queued (`claims-crew requeue ID`)",
}


@click.command("ingest")
@click.argument("inbox", type=click.Path(file_okay=False, exists=True, path_type=Path))
@json_option
def ingest_command(inbox: Path, as_json: bool) -> None:
    """Read the claim files in INBOX into the store and queue them for `claims-crew work`."""
    from claims_crew.claim_files import inbox_files
    from claims_crew.run.ingest import ingest
    from claims_crew.settings import Limits
    from claims_crew.store import Store

    console = Console()
    try:
        store = Store()
        # Reading a claim's attachments (OCR) is held to the claim's deadline.
        seconds = Limits.from_environment().claim_deadline_s
        results = ingest(inbox_files(inbox), store, seconds)
    except ClaimsCrewError as exc:
        fail_with(exc, exit_code=EXIT_FAILED)
    refused = sum(r.refused for r in results)
    if as_json:
        emit_json({"files": [r.as_json() for r in results]})
        raise SystemExit(EXIT_FAILED if refused else 0)
    console.print(ingest_table(results))
    queued = sum(r.state == "queued" for r in results)
    console.print(
        f"{len(results)} claim file(s) in {markup(inbox)}: {queued} queued, "
        f"{refused} refused; pending in {markup(store.where)}: {store.queue_counts().pending}. "
        "`claims-crew work` reviews them."
    )
    if refused:
        click.echo(f"{refused} claim file(s) refused; see the table above.", err=True)
        raise SystemExit(EXIT_FAILED)


def ingest_table(results: list[Ingested]) -> Table:
    table = Table(title="Claim files ingested")
    for column in ("file", "claim", "state"):
        table.add_column(column)
    for result in results:
        if result.state is None:
            why = Text(f"refused ({result.code})", style="red")
            why.append(": " + clean(result.error or ""))
            table.add_row(plain(result.path.name), "-", why)
        else:
            style = "yellow" if result.state == "changed_after_decision" else ""
            said = Text(SAID[result.state], style)
            said.append_text(notes_text(tuple(result.notes)))
            table.add_row(plain(result.path.name), plain(result.claim_id), said)
    return table


@click.command("work")
@concurrency_option
@click.option(
    "--until-empty",
    is_flag=True,
    help="Stop once the queue holds no pending claim (default: keep waiting for claims).",
)
@config_dir_option
def work_command(concurrency: int | None, until_empty: bool, config_dir: Path | None) -> None:
    """Take pending claims from the store and review them, until stopped (SIGTERM, Ctrl-C)."""
    use_config_dir(config_dir)
    keep_crewai_at_home()
    try:
        refuse_a_broken_config()  # before the store is opened or made, as `run` does
        failed = work_queue(Console(), concurrency or default_concurrency(), until_empty)
    except ClaimsCrewError as exc:
        fail_with(exc, exit_code=EXIT_FAILED)
    if failed:
        click.echo(f"{failed} claim(s) failed; the table and the reasons are above.", err=True)
    leave(EXIT_FAILED if failed else 0)


def work_queue(console: Console, concurrency: int, until_empty: bool) -> int:
    """Work the queue; return how many claims reviewed here failed."""
    from claims_crew.run.worker import Worker
    from claims_crew.store import Store

    settings = checked_settings(Store())
    store = settings.store
    pending = store.queue_counts().pending
    how = "until the queue is empty" if until_empty else "until stopped (SIGTERM or Ctrl-C)"
    console.print(
        f"{pending} claim(s) pending in {markup(store.where)}; working at concurrency "
        f"{concurrency}, {how}.",
        highlight=False,
    )
    # Counted against the claims pending now; other workers take from the same queue and
    # ingests add to it, so past those (or with none pending) the lines have no total.
    with BatchProgress(console, pending or None, rate_limit=settings.rate_limit) as progress:
        worker = Worker(
            settings,
            concurrency,
            until_empty,
            on_start=progress.started,
            on_done=progress.finished,
        )
        with _stopping_on_signals(worker):
            items = worker.run()
    if items:
        console.print(claims_table(items))
    else:
        console.print("No claim reviewed.")
    _escalations(console, items, [], store)
    if settings.batch_stop.is_set():
        stopped = settings.batch_stop.said(store.queue_counts().pending)
        console.print(plain(stopped), style="red", soft_wrap=True)
    reasons = failure_reasons(items)
    if reasons:
        console.print(plain(failures_said(reasons), style="red"), soft_wrap=True)
    return sum(reasons.values())


@contextmanager
def _stopping_on_signals(worker: Worker) -> Iterator[None]:
    """SIGTERM and SIGINT stop the worker's taking; a second one acts as it would have."""
    previous: dict[int, Any] = {}

    def stop(signum: int, _frame: FrameType | None) -> None:
        click.echo(
            f"{signal.Signals(signum).name}: taking no more claims; finishing those in hand "
            "(again to stop now).",
            err=True,
        )
        worker.stop.set()
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    with on_stop_signals(stop) as before:
        previous.update(before)
        yield
