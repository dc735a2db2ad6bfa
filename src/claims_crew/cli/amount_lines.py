"""The amount payable and the external codes of one claim, for `review show`'s terminal view."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from claims_crew.cli.safe_text import plain
from claims_crew.cli.tables import Table


def amount_block(detail: dict[str, Any]) -> RenderableType:
    """The reason codes with the team's codes beside them, then the amount and its steps."""
    parts: list[RenderableType] = []
    external = detail.get("external") or {}
    if external.get("reason_codes") or external.get("code"):
        mapped = ", ".join(
            f"{code} ({team or 'unmapped'})" for code, team in external["reason_codes"].items()
        )
        parts.append(
            plain(
                f"External code: {external.get('code') or '-'}"
                + (f"  [{mapped}]" if mapped else "")
            )
        )
    payable = detail.get("payable")
    if payable is None:
        return Group(*parts)
    if payable["amount"] is None:
        parts.append(plain(f"Payable: no amount ({payable['reason']})"))
        return Group(*parts)
    label = "Payable if covered" if payable["held"] else "Payable"
    parts.append(Text(f"{label}: {payable['amount']} {payable['currency']}", style="bold"))
    steps = Table(title=f"Amount payable (on {payable['deciding_clause']})", show_lines=False)
    for column in ("step", "clause", "before", "after", "note"):
        steps.add_column(column, overflow="fold", no_wrap=column != "note")
    for step in payable["steps"]:
        steps.add_row(
            step["kind"],
            plain(step["clause_id"] or "-"),
            step["before"],
            step["after"],
            plain(step["note"]),
        )
    parts.append(steps)
    return Group(*parts)
