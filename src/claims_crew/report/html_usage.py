"""The HTML page's section on tokens, cost and time per level (the figures of usage.py).

Tables only, in the page's own style; every value is escaped by the table writer of html.py.
"""

from __future__ import annotations

from html import escape

from claims_crew.report.build import Report
from claims_crew.report.html import _table
from claims_crew.report.usage import Cost


def _money(value: float | None) -> str:
    return "–" if value is None else f"{value:,.4f}"


def _cost_cells(c: Cost | None) -> list[object]:
    if c is None:
        return ["–", "–", "–", "–"]
    return [_money(c.figure), _money(c.total), c.claims, c.unpriced]


def usage_section(report: Report) -> str:
    cost = report.cost
    out = ["<h2>Tokens, cost and time per level</h2><div class=row><div>"]
    out.append("<h3>Tokens and cost by task</h3>")
    out.append(
        _table(
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
    )
    if cost.currency is None:
        out.append('<p class="muted">No cost shown: no price table (config/prices.yaml).</p>')
    else:
        resolved = " or ".join(cost.resolved_conflict_outcomes)
        out.append(f"<h3>Cost, {escape(cost.currency)} at config/prices.yaml</h3>")
        out.append(
            _table(
                ["cost", "mean", "total", "priced claims", "unpriced"],
                [
                    ["per claim", *_cost_cells(cost.per_claim)],
                    ["per automatic decision", *_cost_cells(cost.per_automatic_decision)],
                    [
                        f"per resolved conflict ({resolved})",
                        *_cost_cells(cost.per_resolved_conflict),
                    ],
                ],
            )
        )
        if cost.unpriced_models:
            out.append(
                '<p class="muted">Models with no price: '
                f"{escape(', '.join(cost.unpriced_models))}</p>"
            )
    out.append("</div><div><h3>Time to decision per level (seconds)</h3>")
    out.append(
        _table(
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
    )
    out.append("</div></div>")
    return "".join(out)
