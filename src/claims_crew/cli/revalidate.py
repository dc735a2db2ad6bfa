"""`claims-crew review stale` and `claims-crew revalidate`: decisions that no longer stand as
they were made, and running them again under the current state (docs/resolver.md,
"Expiry and revalidation").

Both read the project as `run` does: the policies through the library, the config in
CLAIMS_CREW_CONFIG or config/, the decision store in CLAIMS_CREW_HOME. `revalidate` builds its
RunContext the way `run` does, so a claim is reviewed again by the same crew, models and rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from rich.console import Console

from claims_crew.cli._output import EXIT_FAILED, emit_json, json_option, reports_errors
from claims_crew.cli.safe_text import plain
from claims_crew.cli.tables import Table
from claims_crew.settings import keep_crewai_at_home
from claims_crew.settings.command import command
from claims_crew.vocabulary import utc_now

if TYPE_CHECKING:
    from claims_crew.run.stale import StaleDecision


def stale_decisions() -> list[StaleDecision]:
    """The stale decisions in the store, against the project as it is now."""
    from claims_crew.run.stale import current_project, find_stale
    from claims_crew.store import Store

    return find_stale(Store(), current_project(), utc_now())


def show_stale(as_json: bool) -> None:
    found = stale_decisions()
    if as_json:
        emit_json({"stale": [s.as_json() for s in found], "total": len(found)})
        return
    console = Console()
    if not found:
        console.print("No stale decisions: every decision stands on the current state.")
        return
    table = Table(title=f"{len(found)} stale decision(s)")
    for column in ("claim", "decision", "decided by", "since", "why"):
        table.add_column(
            column, overflow="fold", no_wrap=column == "claim", whole_words=column == "decision"
        )
    for stale in found:
        decision = stale.outcome + (f" {stale.answer}" if stale.answer else "")
        if stale.human_decision:
            decision += f" → {stale.human_decision}"
        table.add_row(
            plain(stale.claim_id),
            plain(decision),
            plain(stale.decided_by),
            plain(stale.validated_at),
            plain("; ".join(f"{reason}: {text}" for reason, text in stale.why.items())),
        )
    console.print(table)
    console.print(f"Run them again with: {command('revalidate [CLAIM_ID…]')}", style="dim")


@click.command("revalidate")
@click.argument("claim_ids", nargs=-1, metavar="[CLAIM_ID]...")
@json_option
@reports_errors
def revalidate_command(claim_ids: tuple[str, ...], as_json: bool) -> None:
    """Run decisions again under the current state: the claims named, else every stale one.

    Each gets a linked audit entry saying whether it replays the decision (same outcome and
    answer) or makes a new one, and what had changed. A person's decision is never
    overwritten: a new outcome on a claim a person decided goes back to the review queue.
    Exits 1 when a claim could not be reviewed again (its decision then stands).
    """
    keep_crewai_at_home()
    from claims_crew.cli.run import checked_settings
    from claims_crew.store import Store

    settings = checked_settings(Store())
    # CrewAI (through the claim routine) only once the config check has passed.
    from claims_crew.run.revalidate import revalidate

    results = revalidate(settings, utc_now(), list(claim_ids) or None)
    failed = sum(r.error is not None for r in results)
    if as_json:
        emit_json({"revalidated": [r.as_json() for r in results], "failed": failed})
    elif not results:
        Console().print("Nothing to revalidate: no decision is stale.")
    else:
        console = Console()
        table = Table(title=f"{len(results)} decision(s) revalidated")
        for column in ("claim", "changed", "before", "after", "result"):
            table.add_column(
                column,
                overflow="fold",
                no_wrap=column == "claim",
                whole_words=column in ("before", "after"),
            )
        for r in results:
            after = "-" if r.after is None else " ".join(v for v in r.after if v)
            if r.error is not None:
                result = f"failed: {r.error}"
            elif r.reopened:
                result = "new decision: back to the review queue (a person decided it)"
            else:
                result = "replay: same decision" if r.verdict == "replay" else "new decision"
            table.add_row(
                plain(r.claim_id),
                plain(", ".join(r.changed) or "-"),
                plain(r.before_shown()),
                plain(after),
                plain(result),
            )
        console.print(table)
    if failed:
        raise SystemExit(EXIT_FAILED)
