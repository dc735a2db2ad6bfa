"""Review every new claim in an inbox: what `claims-crew run` and `crewai run` both do.

`run_inbox` is the one run: main.run (the `run_crew` script `crewai run` starts) and the `run`
command call it. It ingests the inbox's undecided claims into the store (ingest.py), then works
them, each under its claim lease, as `claims-crew work` processes elsewhere may do beside it.
It shows a progress bar and a final table (rich), says how many claims wait for a person, and
exits non-zero when a claim failed or the run could not start: `crewai run` itself exits 0
whatever its script does.

CrewAI is imported inside the functions: after run_inbox has set the environment CrewAI reads
(settings.keep_crewai_at_home), and not at all when `claims-crew --help` lists the commands.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from claims_crew.cli._output import EXIT_FAILED, fail_with
from claims_crew.cli.claim_lines import claims_table, failure_reasons, failures_said, with_notes
from claims_crew.cli.config_first import (
    config_dir_option,
    refuse_a_broken_config,
    use_config_dir,
)
from claims_crew.cli.notices import print_notices
from claims_crew.cli.progress import BatchProgress
from claims_crew.cli.safe_text import clean, markup, plain
from claims_crew.cli.shadow import fresh_option, shadow_option
from claims_crew.cli.stopping import ending_on_signals
from claims_crew.errors import ClaimsCrewError
from claims_crew.settings import config_dir as project_config_dir
from claims_crew.settings import current, inbox_dir, keep_crewai_at_home, workers_from_environment
from claims_crew.settings.command import command
from claims_crew.vocabulary import OPEN_OUTCOMES

if TYPE_CHECKING:
    from claims_crew.llms.select import LLMFactory
    from claims_crew.run.context import RunContext
    from claims_crew.run.ingest import Ingested
    from claims_crew.run.processes import DeadWorker, PoolResult
    from claims_crew.run.routine import BatchItem
    from claims_crew.store import Store


# `run` and `work` take it alike.
concurrency_option = click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=None,
    help="Claims reviewed at once (default: 4 with a remote MODEL, else 1).",
)


@click.command("run")
@click.option(
    "--inbox",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Folder of claim files (default: claims/inbox).",
)
@concurrency_option
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Processes sharing the store, each reviewing its share of the claims at --concurrency "
    "(default: CLAIMS_CREW_WORKERS, else 1: this process).",
)
@shadow_option
@fresh_option
@config_dir_option
def run_command(
    inbox: Path | None,
    concurrency: int | None,
    workers: int | None,
    shadow: str | None,
    fresh: bool,
    config_dir: Path | None,
) -> None:
    """Review every claim in the inbox that has not been reviewed yet."""
    from claims_crew.run.shadows import shadow_from_environment

    use_config_dir(config_dir)

    if fresh and not (shadow or shadow_from_environment()):
        raise click.UsageError("--fresh starts a shadow over: it goes with --shadow NAME")
    run_inbox(inbox, concurrency, shadow, fresh, workers=workers)


def checked_settings(store: Store, llm_for: LLMFactory | None = None) -> RunContext:
    """What every claim of a run shares: the config (checked first, so a broken one is refused
    before any model call is spent on it), the library, the models and the store."""
    from claims_crew.run.project import project_settings

    # CrewAI warns on every call to a model without a tokenizer it knows; the table says more.
    logging.getLogger("crewai.llms.base_llm").setLevel(logging.ERROR)
    return project_settings(store, llm_for)


def run_inbox(
    inbox: Path | None = None,
    concurrency: int | None = None,
    shadow: str | None = None,
    fresh: bool = False,
    workers: int | None = None,
    failure_note: str = "",
) -> None:
    """Review the inbox (default: claims/inbox); exit 1 when a claim failed or the run could not
    start, so that CI and scripts see it, and 128 + the signal when stopped (stopping.py). With
    `shadow` (else CLAIMS_CREW_SHADOW), into that shadow instead of production
    (claims_crew.run.shadows). With `workers` (else CLAIMS_CREW_WORKERS) above 1, in that many
    processes (claims_crew.run.processes). `failure_note` is the last line on stderr of a run
    that fails or is stopped (the `crewai run` entry says there what CrewAI's exit status
    hides)."""
    from claims_crew.run.shadows import shadow_from_environment

    print_notices()  # `crewai run` enters here, not through the command group
    console = Console()
    try:
        current()  # every setting read and checked before any other work (`crewai run` too)
        # Then the config, before the store is opened or made and CrewAI is loaded. The run
        # checks it again as it builds its settings (project_settings, which every command
        # building a crew goes through): a tenth of a second, for one path to a crew.
        refuse_a_broken_config()
        keep_crewai_at_home()
        workers = workers or workers_from_environment()
        with ending_on_signals(console, failure_note, through_pool=workers > 1):
            failed = review_inbox(
                inbox or inbox_dir(),
                concurrency or default_concurrency(),
                console,
                shadow=shadow or shadow_from_environment(),
                fresh=fresh,
                workers=workers,
            )
    except ClaimsCrewError as exc:
        try:
            fail_with(exc, exit_code=EXIT_FAILED)
        finally:
            _note(failure_note)
    if failed:
        click.echo(f"{failed} claim(s) failed; the table and the reasons are above.", err=True)
    leave(EXIT_FAILED if failed else 0, failure_note)


def _note(note: str) -> None:
    if note:
        click.echo(note, err=True)


def leave(exit_code: int, failure_note: str = "") -> None:
    """Return, or exit with `exit_code` (saying `failure_note` first), once the run's work is
    done and written.

    A claim given up on at its deadline may still have a model call open, made from a worker
    thread that Python waits for before the process may exit: up to the call's timeout and
    retries. Nothing of that claim can be written any more, so the process ends now instead.
    """
    from claims_crew.run.deadline import abandoned_work

    if exit_code:
        _note(failure_note)
    if abandoned_work():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exit_code)
    if exit_code:
        sys.exit(exit_code)


def default_concurrency() -> int:
    """Remote models are I/O-bound, so claims overlap; the in-process model runs one at a time."""
    from claims_crew.llms.select import configured_model

    if (given := current().claims_crew_concurrency) is not None:
        return int(given)
    return 4 if configured_model("intake") else 1


def review_inbox(
    inbox: Path,
    concurrency: int,
    console: Console,
    llm_for: LLMFactory | None = None,
    shadow: str | None = None,
    fresh: bool = False,
    workers: int = 1,
) -> int:
    """Review the claims in `inbox` that have no decision yet; return how many failed.

    With `shadow`, the claims with no decision in that shadow, into it: production is never
    opened (`fresh`: the shadow starts over). With `workers` above 1, by that many queue worker
    processes, which build their models from the environment and the config (not from
    `llm_for`); a claim no worker finished counts as failed, and each dead worker is named."""
    from claims_crew.cli import shadow as shadow_output
    from claims_crew.run.shadows import open_shadow
    from claims_crew.store import Store

    if workers > 1 and llm_for is not None:
        raise ValueError("worker processes build their own models: llm_for cannot reach them")
    settings = checked_settings(open_shadow(shadow, fresh) if shadow else Store(), llm_for)
    from claims_crew.run.batch import review_ingested  # CrewAI: only once the config passed

    if shadow:
        shadow_output.announce(console, shadow, settings.store)
    todo, changed = _ingest_inbox(inbox, settings, console)
    dead: list[DeadWorker] = []
    left: list[Path] = []
    if not todo:  # said by _ingest_inbox: no empty bar, no empty table
        _summary(console, [], changed, settings.store, shadow)
        return 0
    with BatchProgress(console, len(todo), rate_limit=settings.rate_limit) as progress:
        if workers > 1:
            pooled = _in_workers(todo, settings, concurrency, workers, progress)
            items, dead, left = pooled.items, pooled.dead, pooled.left
            if pooled.stopped is not None:  # said below, as a run in one process says it
                settings.batch_stop.heard(pooled.stopped)
        else:
            items = review_ingested(
                todo, settings, concurrency, on_done=progress.finished, on_start=progress.started
            )
    items = with_notes(items, todo)
    console.print(claims_table(items))
    for worker in dead:
        console.print(plain(worker.describe()), style="red", soft_wrap=True)
    if left and not settings.batch_stop.is_set():  # else left queued, as said below
        names = ", ".join(p.name for p in left)
        console.print(
            plain(
                f"{len(left)} claim file(s) no worker finished are left for the next run: {names}"
            ),
            style="red",
            soft_wrap=True,
        )
    _summary(console, items, changed, settings.store, shadow)
    if settings.batch_stop.is_set():
        stopped = settings.batch_stop.said(settings.store.queue_counts().pending)
        console.print(plain(stopped), style="red", soft_wrap=True)
    # A worker that died still fails the run, even when the others finished its claims.
    lost = len(dead) if settings.batch_stop.is_set() else max(len(left), len(dead))
    reasons = failure_reasons(items, workers_lost=lost)
    if reasons:
        console.print(plain(failures_said(reasons), style="red"), soft_wrap=True)
    return sum(reasons.values())


def _summary(
    console: Console, items: list[BatchItem], changed: list[str], store: Store, shadow: str | None
) -> None:
    from claims_crew.cli import shadow as shadow_output

    if shadow:
        shadow_output.summary(console, shadow, items, changed)
    else:
        _escalations(console, items, changed, store)


def _ingest_inbox(
    inbox: Path, settings: RunContext, console: Console
) -> tuple[list[Ingested], list[str]]:
    """Ingest, then work: each claim file is read once, kept whole in the store and queued, so
    `claims-crew work` processes elsewhere on the same store can take some of the claims (this
    run skips a claim a worker holds). Ingesting is also the triage: a decided claim is not
    queued, and a file changed after its decision is flagged. A refused file stays, to be
    reported in the table. Returns what to review, and the names of the changed files."""
    from claims_crew.claim_files import inbox_files
    from claims_crew.run.batch import SETTLED
    from claims_crew.run.ingest import ingest

    ingested = ingest(inbox_files(inbox), settings.store, settings.limits.claim_deadline_s)
    todo = [item for item in ingested if item.state not in SETTLED]
    changed = [i.path.name for i in ingested if i.state == "changed_after_decision"]
    if todo:
        said = f"{len(todo)} to review."
    elif ingested:
        said = "0 to review: each has a decision already."
    else:
        said = "nothing to review."
    console.print(f"{len(ingested)} claim file(s) in {markup(inbox)}; {said}")
    return todo, changed


def _in_workers(
    todo: list[Ingested],
    settings: RunContext,
    concurrency: int,
    workers: int,
    progress: BatchProgress,
) -> PoolResult:
    """The refused files reported here; the queued claims worked by worker processes."""
    from claims_crew.run.processes import run_in_workers
    from claims_crew.run.routine import BatchItem

    refused = [BatchItem.refused(i) for i in todo if i.refused]
    for item in refused:
        progress.started(item.path)
        progress.finished(item)
    pooled = run_in_workers(
        [i.path for i in todo if not i.refused],
        settings.store,
        settings.config_dir or project_config_dir(),
        concurrency,
        workers,
        on_done=progress.finished,
        on_start=progress.started,
    )
    return replace(pooled, items=refused + pooled.items)


def _escalations(
    console: Console, items: list[BatchItem], changed: list[str], store: Store
) -> None:
    """How many claims wait for a person, and how to open them."""
    escalated = sum(
        1
        for item in items
        if item.record is not None
        and item.record.resolution is not None
        and item.record.resolution.outcome in OPEN_OUTCOMES
    )
    waiting = store.open_count()
    console.print(
        f"{escalated} claim(s) escalated in this run; {waiting} open escalation(s) in all.",
        markup=False,
    )
    if waiting:
        console.print(
            f"Open them with `{command('review list')}` and `{command('review show CLAIM_ID')}`, "
            f"or on the web page: `{command('reviewers add NAME')}`, then `{command('serve')}`.",
            markup=False,
        )
    if changed:
        console.print(
            f"{len(changed)} claim file(s) changed after their decision and were not decided "
            f"again: {clean(', '.join(changed))}.",
            style="yellow",
            markup=False,
        )
