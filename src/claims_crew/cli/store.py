"""`claims-crew store copy --to URL`: move the decision store into another database.

The usual move is from the SQLite file to PostgreSQL, when a team outgrows one machine
(docs/scale-out.md, "Moving the store to PostgreSQL"). The store copied is the one every command
opens: CLAIMS_CREW_DATABASE_URL, else the SQLite file in CLAIMS_CREW_HOME. The copy's audit
chain is verified before the command says it is done.
"""

from __future__ import annotations

import sys

import click
from rich.console import Console

from claims_crew.cli._output import EXIT_FAILED, emit_json, json_option, reports_errors
from claims_crew.cli.safe_text import plain
from claims_crew.cli.tables import Table
from claims_crew.store import Store
from claims_crew.store.copy import copy_store, target_url
from claims_crew.store.engine import DATABASE_URL_VARIABLE, describe


@click.group("store")
def store_group() -> None:
    """The decision store itself: copy it into another database."""


@store_group.command("copy")
@click.option(
    "--to",
    "to",
    required=True,
    metavar="URL",
    help="The empty database to copy into: postgresql+psycopg://USER@HOST/DB, "
    "or an SQLite URL or file path.",
)
@json_option
@reports_errors
def store_copy(to: str, as_json: bool) -> None:
    """Copy every row of the store (the audit chain included, ids kept) into an empty database,
    in one transaction; then verify the copy's audit chain. Exits 1 if it does not verify."""
    source = Store()
    url = target_url(to)
    copied = copy_store(source, url)
    verdict = Store(url=url).verify_audit()
    if as_json:
        emit_json(
            {
                "from": source.where,
                "to": describe(url),
                "tables": {c.table: c.rows for c in copied},
                "audit": verdict.as_json(),
            }
        )
    else:
        console = Console()
        console.print(plain(f"Copied {source.where} into {describe(url)}:"))
        table = Table()
        table.add_column("table")
        table.add_column("rows", justify="right")
        for c in copied:
            table.add_row(c.table, f"{c.rows:,}")
        table.add_row("all", f"{sum(c.rows for c in copied):,}", style="bold")
        console.print(table)
        if verdict.ok:
            console.print(
                plain(
                    f"The copy's audit chain verifies: {verdict.entries} entries. Use it with "
                    f"{DATABASE_URL_VARIABLE}={describe(url)}"
                )
            )
        else:
            console.print(
                plain(
                    f"The copy's audit chain is BROKEN at entry {verdict.first_bad}: "
                    f"{verdict.problem}",
                    style="red",
                )
            )
    if not verdict.ok:
        sys.exit(EXIT_FAILED)
