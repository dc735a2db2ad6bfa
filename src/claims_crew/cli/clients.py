"""`claims-crew clients add | list | revoke`: the service clients of the HTTP API (a core claims
system, not a person). A client's token is printed once, as a reviewer's is, and only its
SHA-256 is kept; its scopes say what it may do (`submit` claims and documents, `read` claims
and letters). Each client is added and revoked by the OS user at the command line, named on
its row: anyone who can open the store can run these, as they can `requeue`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from claims_crew.cli._output import emit_json, is_terminal, json_option, plain_line, reports_errors
from claims_crew.cli.acting import os_user
from claims_crew.cli.safe_text import plain
from claims_crew.cli.tables import Table
from claims_crew.errors import NotFound
from claims_crew.vocabulary import API_SCOPES

if TYPE_CHECKING:
    from claims_crew.store import ApiClient


def _scopes(_ctx: click.Context, _param: click.Parameter, value: str) -> list[str]:
    """`submit,read` as the store keeps scopes (store/clients.scopes_text: known ones only, at
    least one); anything else is a usage error, before the store is opened."""
    from claims_crew.errors import StoreError
    from claims_crew.store.clients import scopes_text

    try:
        return scopes_text(value.split(",")).split(",")
    except StoreError as exc:
        raise click.BadParameter(str(exc)) from exc


def client_json(client: ApiClient) -> dict[str, Any]:
    return {
        "name": client.name,
        "scopes": sorted(client.scopes),
        "created_at": client.created_at,
        "created_by": client.created_by,
        "revoked_at": client.revoked_at,
        "revoked_by": client.revoked_by,
    }


@click.group()
def clients() -> None:
    """Service clients of the HTTP API: their tokens and scopes."""


@clients.command("add")
@click.argument("name")
@click.option(
    "--scope",
    "scopes",
    required=True,
    callback=_scopes,
    help=f"What it may do, comma-separated: {', '.join(API_SCOPES)}.",
)
@json_option
@reports_errors
def clients_add(name: str, scopes: list[str], as_json: bool) -> None:
    """Add a service client; print its API token once (only its hash is kept)."""
    from claims_crew.store import Store

    store = Store()
    token = store.add_client(name, scopes, f"cli:{os_user()}")
    if as_json:
        (added,) = [c for c in store.clients() if c.name == name.strip()]
        emit_json({"client": client_json(added), "token": token})
        return
    click.echo(f"Client {name.strip()} added ({', '.join(scopes)}). API token (shown once):")
    click.echo(token)


@clients.command("list")
@json_option
@reports_errors
def clients_list(as_json: bool) -> None:
    """Every service client, with its scopes and whether it is revoked."""
    from claims_crew.store import Store

    rows = Store().clients()
    if as_json:
        emit_json({"clients": [client_json(c) for c in rows]})
        return
    console = Console()
    if not is_terminal(console):  # a pipe or a CI log: one whole line a client
        for c in rows:
            plain_line(console, f"{c.name}  {','.join(sorted(c.scopes))}  {_state(c)}")
        return
    table = Table(title=f"{len(rows)} client(s)")
    for column in ("name", "scopes", "added", "state"):
        table.add_column(column, no_wrap=column == "name")
    for c in rows:
        added = f"{c.created_at} by {c.created_by}"
        table.add_row(plain(c.name), ",".join(sorted(c.scopes)), plain(added), plain(_state(c)))
    console.print(table)


def _state(client: ApiClient) -> str:
    if client.revoked_at is None:
        return "active"
    return f"revoked {client.revoked_at} by {client.revoked_by}"


@clients.command("revoke")
@click.argument("name")
@json_option
@reports_errors
def clients_revoke(name: str, as_json: bool) -> None:
    """Revoke a service client's token for good (exit 3 when no such client is active)."""
    from claims_crew.store import Store

    if not Store().revoke_client(name, f"cli:{os_user()}"):
        raise NotFound(f"no active client named {name!r}")
    if as_json:
        emit_json({"revoked": name})
        return
    click.echo(f"Client {name} revoked: its token is refused from now on.")
