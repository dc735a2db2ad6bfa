"""`claims-crew webhooks deliveries`: the webhook outbox's deliveries (store/outbox.py), latest
first, with their status (pending, delivered, failed), tries, the receiver's last answer and
when the next try is due. `claims-crew webhooks send`: one pass of the sender (webhooks/)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from claims_crew.cli._output import emit_json, is_terminal, json_option, plain_line, reports_errors
from claims_crew.cli.safe_text import plain
from claims_crew.cli.tables import Table

if TYPE_CHECKING:
    from claims_crew.store import Delivery

STATES = ("pending", "delivered", "failed")


def delivery_json(d: Delivery) -> dict[str, Any]:
    """A delivery as listed: everything but the payload it sends."""
    return {name: getattr(d, name) for name in d.__dataclass_fields__ if name != "payload"}


def delivery_line(d: Delivery) -> str:
    answer = d.last_status if d.last_status is not None else "-"
    due = f" next {d.next_at}" if d.status == "pending" and d.next_at else ""
    error = f" ({d.last_error})" if d.last_error else ""
    return (
        f"{d.id} {d.status} {d.event} {d.claim_id} -> {d.endpoint}: "
        f"{d.attempts} tries, last {answer}{due}{error}"
    )


@click.group()
def webhooks() -> None:
    """Webhooks sent to the endpoints in config/webhooks.yaml."""


@webhooks.command("deliveries")
@click.option("--status", type=click.Choice(STATES), help="Only deliveries in this status.")
@click.option(
    "--limit", type=click.IntRange(min=1), default=100, show_default=True, help="At most this many."
)
@json_option
@reports_errors
def webhooks_deliveries(status: str | None, limit: int, as_json: bool) -> None:
    """List webhook deliveries, latest first, with their status and tries."""
    from claims_crew.store import Store

    store = Store()
    rows = store.deliveries(status, limit)
    counts = store.delivery_counts()
    if as_json:
        emit_json({"counts": counts, "deliveries": [delivery_json(d) for d in rows]})
        return
    console = Console()
    summary = ", ".join(f"{n} {state}" for state, n in counts.items())
    if not is_terminal(console):  # a pipe or a CI log: one whole line a delivery
        plain_line(console, summary)
        for d in rows:
            plain_line(console, delivery_line(d))
        return
    table = Table(title=f"Deliveries: {summary}")
    for column in ("id", "status", "event", "claim", "endpoint", "tries", "last", "next / error"):
        table.add_column(column, no_wrap=column in ("id", "claim"))
    for d in rows:
        table.add_row(
            str(d.id),
            d.status,
            d.event,
            plain(d.claim_id),
            plain(d.endpoint),
            str(d.attempts),
            str(d.last_status) if d.last_status is not None else "-",
            plain(d.last_error or (d.next_at if d.status == "pending" else "") or ""),
        )
    console.print(table)


@webhooks.command("send")
@json_option
@reports_errors
def webhooks_send(as_json: bool) -> None:
    """Send what is due now, once, and exit: for a machine that decides claims with `run` or
    `work` and runs no `serve` (whose sender does this every second). Run it from cron or a
    timer; two at once never send one delivery twice (each is leased in the store)."""
    from claims_crew.store import Store
    from claims_crew.webhooks.loop import make_sender

    sender = make_sender(Store())  # a bad file or an unset secret stops it here
    try:
        said = asdict(sender.run_pass())
    finally:
        sender.close()
    if as_json:
        emit_json(said)
        return
    plain_line(Console(), ", ".join(f"{n} {what}" for what, n in said.items()))
