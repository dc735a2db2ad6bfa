"""`claims-crew appeal`: reopen a decided claim with new evidence (run/appeal.py)."""

from __future__ import annotations

from pathlib import Path

import click

from claims_crew.cli._output import emit_json, json_option, reports_errors
from claims_crew.settings import keep_crewai_at_home


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
    from claims_crew.store import Store

    settings = checked_settings(Store())
    from claims_crew.run.appeal import appeal  # CrewAI: only once the config check passed

    done = appeal(settings, claim_id, list(attachments), reason)
    if as_json:
        emit_json({"appeal": done.as_json()})
    elif done.error is not None:
        click.echo(f"{claim_id}: appeal not decided: {done.error}", err=True)
    else:
        where = (
            f"back to the review queue for a reviewer other than {done.previous_reviewer}"
            if done.previous_reviewer
            else "back to the review queue"
            if done.escalated
            else "decided"
        )
        said = " ".join(v for v in (done.outcome, done.answer) if v)
        click.echo(
            f"{claim_id}: appeal reviewed: {said}, {where}; audit entry {done.audit_seq} "
            f"replaces entry {done.replaces}."
        )
    if done.error is not None:
        raise SystemExit(1)
