"""The review desk's part of `claims-crew report` in the terminal (report/desk.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

from claims_crew.cli.tables import Table

if TYPE_CHECKING:
    from claims_crew.report.desk import DeskFigures
    from claims_crew.report.metrics import Metric


def _rate(m: Metric) -> str:
    shown = "–" if m.figure is None else f"{m.figure * 100:.1f}%"
    return f"{shown} ({m.count} of {m.denominator})"


def show_desk(console: Console, desk: DeskFigures | None) -> None:
    """Open escalations by days waiting, the overdue count, and the on-time rates."""
    if desk is None:
        return
    ageing = Table(title=f"Open escalations by days waiting, on {desk.on.isoformat()}")
    ageing.add_column("waiting")
    ageing.add_column("escalations", justify="right")
    for bucket in desk.ageing:
        ageing.add_row(bucket.label, f"{bucket.count:,}")
    ageing.add_row("overdue (past the day to decide)", f"{desk.overdue:,}", style="bold")
    console.print(ageing)
    rates = Table(title="On time, against the clocks (config/clocks.yaml)")
    rates.add_column("rate")
    rates.add_column("figure", justify="right")
    rates.add_row("acknowledged within the clock", _rate(desk.acknowledged_on_time))
    rates.add_row("decided within the clock", _rate(desk.decided_on_time))
    if desk.no_clock:
        rates.add_row("escalations without a clock (left out)", f"{desk.no_clock:,}")
    console.print(rates)
