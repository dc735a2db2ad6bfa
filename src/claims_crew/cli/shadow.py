"""What `claims-crew run --shadow NAME` adds to a run: its options, and what it says at each end.

A shadow run is the ordinary run into another store (claims_crew.run.shadows), so all it needs here
is to check the name before anything starts, to say where its records go, and to point at
`claims-crew compare` instead of the review queue, which a shadow never fills.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from rich.console import Console

from claims_crew.cli.safe_text import clean
from claims_crew.errors import ShadowError
from claims_crew.settings.command import command
from claims_crew.vocabulary import OPEN_OUTCOMES

if TYPE_CHECKING:
    from claims_crew.run.routine import BatchItem
    from claims_crew.store import Store


def _checked_name(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A bad name is a usage error (exit 2) before any claim file is read."""
    from claims_crew.run.shadows import shadow_path

    if value is not None:
        try:
            shadow_path(value)
        except ShadowError as exc:
            raise click.BadParameter(str(exc)) from exc
    return value


shadow_option = click.option(
    "--shadow",
    metavar="NAME",
    default=None,
    callback=_checked_name,
    help="Review every claim, decided ones included, into the shadow NAME "
    "($CLAIMS_CREW_HOME/shadows/NAME.sqlite) and leave production untouched; "
    "CLAIMS_CREW_SHADOW does the same for `crewai run`.",
)
fresh_option = click.option(
    "--fresh",
    is_flag=True,
    help="With --shadow: discard the shadow's earlier records and review every claim again "
    "(without it, claims already in the shadow are skipped, so a stopped shadow run resumes).",
)


def announce(console: Console, name: str, store: Store) -> None:
    console.print(
        f"Shadow run {clean(name)}: records go to {clean(str(store.path))}; production "
        "decisions, the review queue and the audit chain are not touched.",
        style="cyan",
        markup=False,
    )


def summary(console: Console, name: str, items: list[BatchItem], changed: list[str]) -> None:
    """How many claims the config under test would have left for a person, and what next."""
    escalated = sum(
        1
        for item in items
        if item.record is not None
        and item.record.resolution is not None
        and item.record.resolution.outcome in OPEN_OUTCOMES
    )
    console.print(
        f"{escalated} claim(s) would have been left for a person in this run. Compare the "
        f"shadow with production: `{command('compare')} {clean(name)}`.",
        markup=False,
    )
    if changed:
        console.print(
            f"{len(changed)} claim file(s) changed after the shadow decided them and were not "
            f"decided again (--fresh starts the shadow over): {clean(', '.join(changed))}.",
            style="yellow",
            markup=False,
        )
