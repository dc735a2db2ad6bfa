"""The HTML page's section on tokens, cost and time per level (the figures of usage.py), as
tables for the page's template (templates/usage.html draws them)."""

from __future__ import annotations

from dataclasses import dataclass

from claims_crew.report.build import Report
from claims_crew.report.tables import Table
from claims_crew.report.usage import Cost, CostFigures


@dataclass(frozen=True)
class UsageSection:
    """`costs` is None where there is no price table (config/prices.yaml)."""

    by_task: Table
    currency: str | None
    costs: Table | None
    unpriced_models: list[str]
    time_per_level: Table


def _money(value: float | None) -> str:
    return "–" if value is None else f"{value:,.4f}"


def _cost_cells(c: Cost | None) -> list[object]:
    if c is None:
        return ["–", "–", "–", "–"]
    return [_money(c.figure), _money(c.total), c.claims, c.unpriced]


def _costs(cost: CostFigures) -> Table:
    resolved = " or ".join(cost.resolved_conflict_outcomes)
    return Table(
        ["cost", "mean", "total", "priced claims", "unpriced"],
        [
            ["per claim", *_cost_cells(cost.per_claim)],
            ["per automatic decision", *_cost_cells(cost.per_automatic_decision)],
            [f"per resolved conflict ({resolved})", *_cost_cells(cost.per_resolved_conflict)],
        ],
    )


def usage_section(report: Report) -> UsageSection:
    cost = report.cost
    by_task = Table(
        ["task", "claims", "calls", "prompt tokens", "completion tokens", "cost"],
        [
            [
                t.task or "(no task)",
                t.claims,
                t.calls,
                f"{t.prompt_tokens:,}",
                f"{t.completion_tokens:,}",
                _money(t.cost.total) if t.cost is not None else "–",
            ]
            for t in cost.by_task
        ],
    )
    time_per_level = Table(
        ["level", "claims", "mean", "median", "longest"],
        [
            [
                t.level,
                t.claims,
                *("–" if v is None else f"{v:,.2f}" for v in (t.mean, t.median, t.longest)),
            ]
            for t in report.time_per_level
        ],
    )
    return UsageSection(
        by_task=by_task,
        currency=cost.currency,
        costs=None if cost.currency is None else _costs(cost),
        unpriced_models=list(cost.unpriced_models),
        time_per_level=time_per_level,
    )
