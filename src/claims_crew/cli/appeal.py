"""`claims-crew appeal`: reopen a decided claim with new evidence (run/appeal.py)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from claims_crew.cli._output import emit_json, json_option, plain_line, reports_errors, working
from claims_crew.cli.progress import BatchProgress
from claims_crew.cli.safe_text import plain
from claims_crew.settings import keep_crewai_at_home

if TYPE_CHECKING:
    from claims_crew.run.appeal import AppealOutcome
    from claims_crew.run.context import RunContext


@click.command("appeal")
@click.argument("claim_id")
@click.option(
    "--attach",
    "attachments",
    multiple=True,
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A new attachment (repeat for more); read as the claim's own attachments are.",
)
@click.option("--reason", required=True, help="Why the claim is appealed; kept in the audit trail.")
@json_option
@reports_errors
def appeal_command(
    claim_id: str, attachments: tuple[Path, ...], reason: str, as_json: bool
) -> None:
    """Reopen a decided claim with new evidence and review it again.

    The new decision is a new audit entry linked to the one it replaces, which stays on record.
    An appeal of a person's decision goes back to the queue for a different reviewer. Exits 1
    when the review fails (the decision in force then stands), 2 when the appeal is refused.
    """
    keep_crewai_at_home()
    from claims_crew.cli.run import checked_settings
    from claims_crew.deciding.appeals import appeal_taken
    from claims_crew.store import Store

    store = Store()
    # What needs no model first: a claim with nothing to appeal is refused at once.
    appeal_taken(store, claim_id, attachments, reason)
    with working("checking config/ and loading the models", as_json):
        settings = checked_settings(store)
    # With --json, stdout is the JSON alone: the progress goes to stderr.
    done = appeal_shown(settings, claim_id, list(attachments), reason, Console(stderr=as_json))
    if as_json:
        emit_json({"appeal": done.as_json()})
    elif done.error is not None:
        click.echo(f"{claim_id}: appeal not decided: {done.error}", err=True)
    if done.error is not None:
        raise SystemExit(1)


def said(done: AppealOutcome) -> str:
    """What the appeal did, in one line: the new decision and where the claim goes now."""
    if done.error is not None:
        return f"{done.claim_id}: appeal not decided, the decision in force stands"
    where = (
        f"back to the review queue for a reviewer other than {done.previous_reviewer}"
        if done.previous_reviewer
        else "back to the review queue"
        if done.escalated
        else "decided"
    )
    outcome = " ".join(v for v in (done.outcome, done.answer) if v)
    return (
        f"{done.claim_id}: appeal reviewed: {outcome}, {where}; audit entry {done.audit_seq} "
        f"replaces entry {done.replaces}."
    )


def appeal_shown(
    settings: RunContext, claim_id: str, attachments: list[Path], reason: str, console: Console
) -> AppealOutcome:
    """The appeal, its progress shown as a run's (cli/progress.py): a line as the claim is
    reopened, the bar (in a terminal) or a line every HEARTBEAT_S seconds (elsewhere) naming
    the claim under review and for how long, and a line when it is done. A review may take
    minutes on a busy machine or a slow provider: it must not look stuck."""
    from claims_crew.run.appeal import appeal  # CrewAI: only once the config check passed

    names = ", ".join(a.name for a in attachments)
    plain_line(console, f"{claim_id}: reopening the claim with {names}")
    progress = BatchProgress(console, 1, rate_limit=settings.rate_limit)
    reviewing: list[Path] = []
    with ExitStack() as shown:  # the bar only once the review begins: a refusal needs none

        def started(path: Path) -> None:
            plain_line(console, f"{claim_id}: reviewing it again with the new evidence")
            shown.enter_context(progress).started(path)
            reviewing.append(path)

        done = appeal(settings, claim_id, attachments, reason, on_start=started)
        if reviewing:
            progress.ended(reviewing[0], plain(said(done)))
    return done
