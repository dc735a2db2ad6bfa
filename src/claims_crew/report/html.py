"""The report as one self-contained HTML page: inline CSS, charts drawn as inline SVG.

Nothing is fetched when the page opens (no CDN, no script, no web font); a Content-Security-Policy
in the page says so to the browser too. The page is drawn from the Jinja2 templates in
templates/ with autoescape on, so every value from the store is escaped. Escalations link to the
review page's `/escalations/<claim id>` under `review_url` (`claims-crew serve`).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from claims_crew.report import charts, tables
from claims_crew.report.build import Report
from claims_crew.report.usage_tables import usage_section


def _folder() -> Path:
    return Path(str(resources.files("claims_crew.report") / "templates"))


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_folder()),
        autoescape=True,  # everything, whatever the file name: claims and models are untrusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = tables.pct
    env.filters["px"] = lambda v: f"{v:.1f}"
    return env


@cache
def _css() -> Markup:
    # Our own file, not outside text: escaping it would break the quoted font names.
    return Markup((_folder() / "report.css").read_text(encoding="utf-8"))


def _charts(report: Report) -> dict[str, Any]:
    f, reviews = report.overall, report.reviews
    buckets = reviews.agents[0].calibration
    return {
        "outcomes": charts.hbar_chart("Outcomes", list(f.outcomes.items())),
        "fields": charts.grouped_bar_chart(
            "Field null, unverified or disputed",
            [
                (r.field, [r.open_in_conflicts, r.relied_open_in_conflicts, r.open_in_agreements])
                for r in report.by_field
            ],
            ["in conflicts", "relied on, in conflicts", "in agreements"],
            width=680,
        ),
        "reasons": charts.hbar_chart(
            "Escalated, by reason code", list(f.escalation_reasons.items())
        ),
        "calibration": charts.grouped_bar_chart(
            "Reviewer agreed with the agent, by stated confidence",
            [
                (f"{b.low:.1f}–{b.high:.1f}", [a.calibration[i].agreed for a in reviews.agents])
                for i, b in enumerate(buckets)
            ],
            [a.agent for a in reviews.agents],
            diagonal=[(b.low + b.high) / 2 for b in buckets],
        ),
    }


def _tables(report: Report) -> dict[str, Any]:
    return {
        "metrics": tables.metrics_table(report.overall),
        "fields": tables.fields_table(report.by_field),
        "cascade": tables.cascade_tables(report.overall),
        "loss_type": tables.loss_type_table(report),
        "clause": tables.clause_table(report),
        "reviews": tables.review_tables(report.reviews),
    }


def render(report: Report, review_url: str = "http://127.0.0.1:8000") -> str:
    """The whole page as one string."""
    base = review_url.rstrip("/")
    window = f"decided since {report.since.isoformat()}" if report.since else "all decisions"
    page = (
        _environment()
        .get_template("report.html")
        .render(
            report=report,
            css=_css(),
            window=window,
            generated=report.generated_at.strftime("%Y-%m-%d %H:%M UTC"),
            charts=_charts(report),
            tables=_tables(report),
            usage=usage_section(report),
            escalations=tables.escalation_lines(report, base),
            review_url=base,
        )
    )
    return page + "\n"
