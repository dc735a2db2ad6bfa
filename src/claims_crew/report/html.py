"""The report as one self-contained HTML page: inline CSS, charts drawn here as inline SVG.

Nothing is fetched when the page opens (no CDN, no script, no web font); a Content-Security-Policy
in the page says so to the browser too. Every value from the store is escaped. Escalations link
to the review page's `/escalations/<claim id>` under `review_url` (`claims-crew serve`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from urllib.parse import quote

from claims_crew.report.build import Report
from claims_crew.report.metrics import Amount, Figures, Metric

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
 color:#1d2433;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px}
h3{font-size:15px;margin:16px 0 6px}
p.lede{color:#556;margin:0 0 16px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:12px}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px}
.card b{display:block;font-size:24px}.card span{color:#556;font-size:12px}
table{border-collapse:collapse;background:#fff;margin:8px 0;width:100%;font-size:13px}
th,td{border:1px solid #dde1e7;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
svg{background:#fff;border:1px solid #dde1e7;border-radius:8px;max-width:100%;height:auto}
svg text{font:12px system-ui,sans-serif;fill:#1d2433}
.row{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.row>*{flex:1 1 420px}
.row>svg{flex:0 1 auto}
.muted{color:#778}a{color:#1f5fbf}
.code{font-family:ui-monospace,monospace;font-size:12px}
"""
COLOURS = ("#3b6fd1", "#e0823d", "#3a9e6e", "#b4463f", "#7d5bbf")


def pct(m: Metric | None) -> str:
    if m is None or m.figure is None:
        return "–"
    return f"{m.figure * 100:.1f}%"


def mean(a: Amount) -> str:
    return "–" if a.figure is None else f"{a.figure:,.2f}"


def _cell(value: object, numeric: bool = False) -> str:
    cls = ' class="n"' if numeric else ""
    return f"<td{cls}>{escape(str(value))}</td>"


def _table(head: Sequence[str], rows: Iterable[Sequence[object]], numeric_from: int = 1) -> str:
    out = ["<table><thead><tr>", *(f"<th>{escape(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for row in rows:
        out.append(
            "<tr>" + "".join(_cell(v, i >= numeric_from) for i, v in enumerate(row)) + "</tr>"
        )
    out.append("</tbody></table>")
    return "".join(out)


def _metric_cells(m: Metric) -> list[object]:
    return [pct(m), m.count, m.denominator]


def hbar_chart(title: str, items: Sequence[tuple[str, Metric]], width: int = 520) -> str:
    """Horizontal bars, one per item, each as long as its figure (0 to 100%)."""
    label_w, bar_w, row_h, top = 190, width - 190 - 70, 22, 30
    height = top + row_h * max(1, len(items)) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text x="10" y="20" font-weight="600">{escape(title)}</text>',
    ]
    if not items:
        parts.append(f'<text x="10" y="{top + 14}" class="muted">no claims</text>')
    for i, (label, m) in enumerate(items):
        y = top + i * row_h
        length = bar_w * (m.figure or 0.0)
        parts.append(f'<text x="10" y="{y + 14}">{escape(label[:28])}</text>')
        parts.append(
            f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="14" fill="#eef1f5"/>'
            f'<rect x="{label_w}" y="{y + 3}" width="{length:.1f}" height="14" '
            f'fill="{COLOURS[0]}"><title>{escape(label)}: {m.count}/{m.denominator}</title></rect>'
        )
        parts.append(f'<text x="{label_w + bar_w + 6}" y="{y + 14}">{pct(m)} ({m.count})</text>')
    parts.append("</svg>")
    return "".join(parts)


def grouped_bar_chart(
    title: str,
    groups: Sequence[tuple[str, Sequence[Metric]]],
    series: Sequence[str],
    diagonal: Sequence[float | None] = (),
    width: int = 520,
) -> str:
    """Vertical bars, one group per label and one bar per series, on a 0-100% scale; with
    `diagonal`, a ring per group at that value: where a perfectly calibrated agent's bar would
    end (the middle of the confidence bucket)."""
    left, top, plot_h, legend_h = 40, 30, 160, 24
    plot_w = width - left - 10
    height = top + plot_h + 40 + legend_h
    slot = plot_w / max(1, len(groups))
    bar = min(28.0, (slot - 10) / max(1, len(series)))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text x="10" y="20" font-weight="600">{escape(title)}</text>',
    ]
    for tick in (0, 50, 100):
        y = top + plot_h - plot_h * tick / 100
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#dde1e7"/>'
            f'<text x="4" y="{y + 4:.1f}">{tick}%</text>'
        )
    for g, (label, metrics) in enumerate(groups):
        x0 = left + g * slot + (slot - bar * len(metrics)) / 2
        for s, m in enumerate(metrics):
            h = plot_h * (m.figure or 0.0)
            x = x0 + s * bar
            parts.append(
                f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar - 2:.1f}" '
                f'height="{h:.1f}" fill="{COLOURS[s % len(COLOURS)]}"><title>'
                f"{escape(series[s])}, {escape(label)}: {pct(m)} ({m.count}/{m.denominator})"
                "</title></rect>"
            )
        if g < len(diagonal) and (d := diagonal[g]) is not None:
            y = top + plot_h - plot_h * d
            cx = left + g * slot + slot / 2
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{y:.1f}" r="4" fill="none" stroke="#1d2433">'
                f"<title>calibrated: {d:.0%}</title></circle>"
            )
        parts.append(
            f'<text x="{left + g * slot + slot / 2:.1f}" y="{top + plot_h + 16}" '
            f'text-anchor="middle">{escape(label[:18])}</text>'
        )
    y = top + plot_h + 36
    x = float(left)
    for s, name in enumerate(series):
        parts.append(
            f'<rect x="{x:.1f}" y="{y - 10}" width="12" height="12" '
            f'fill="{COLOURS[s % len(COLOURS)]}"/><text x="{x + 16:.1f}" y="{y}">'
            f"{escape(name)}</text>"
        )
        x += 24 + 7 * len(name)
    if diagonal:
        parts.append(
            f'<circle cx="{x + 6:.1f}" cy="{y - 4}" r="4" fill="none" stroke="#1d2433"/>'
            f'<text x="{x + 16:.1f}" y="{y}">calibrated (bucket middle)</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


SLICE_HEAD = [
    "claims",
    "conflict",
    "material",
    "automatic",
    "adjudicator",
    "escalated",
    "calls/claim",
    "tokens/claim",
]


def _slice_cells(f: Figures) -> list[object]:
    return [
        f.claims,
        f"{pct(f.conflict)} ({f.conflict.count}/{f.conflict.denominator})",
        f"{pct(f.material_conflict)} ({f.material_conflict.count})",
        f"{pct(f.automatic)} ({f.automatic.count})",
        f"{pct(f.adjudicator)} ({f.adjudicator.count})",
        f"{pct(f.escalated)} ({f.escalated.count})",
        mean(f.model_calls),
        mean(f.tokens),
    ]


def render(report: Report, review_url: str = "http://127.0.0.1:8000") -> str:
    """The whole page as one string."""
    f = report.overall
    base = review_url.rstrip("/")
    window = f"decided since {report.since.isoformat()}" if report.since else "all decisions"
    out = [
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>claims-crew report</title>",
        f"<style>{CSS}</style></head><body><main>",
        "<h1>claims-crew: disagreement and coverage</h1>",
        f'<p class="lede">{f.claims} decided claims, {escape(window)}; generated '
        f"{escape(report.generated_at.strftime('%Y-%m-%d %H:%M UTC'))}. Each figure is "
        "count / denominator.</p>",
        '<div class="cards">',
    ]
    for label, m in f.headline():
        out.append(
            f'<div class="card"><b>{pct(m)}</b>{escape(label)}<br>'
            f"<span>{m.count} of {m.denominator}</span></div>"
        )
    out.append("</div>")

    out.append("<h2>Outcomes and metrics</h2><div class=row>")
    out.append(hbar_chart("Outcomes", list(f.outcomes.items())))
    out.append(
        _table(
            ["metric", "figure", "count", "denominator"],
            [[label, *_metric_cells(m)] for label, m in f.headline()]
            + [
                [f"per claim: {name}", mean(a), f"{a.count:,.2f}", a.denominator]
                for name, a in (
                    ("model calls", f.model_calls),
                    ("tokens", f.tokens),
                    ("seconds", f.seconds),
                )
            ],
        )
    )
    out.append("</div>")

    from claims_crew.report.html_usage import usage_section  # it reads this module's tables

    out.append(usage_section(report))
    out.append("<h2>Which fields drive disagreement</h2>")
    out.append(
        "<p>For each intake fact: how often it was null, unverified (stated, but not borne out "
        "by the claim) or disputed in the claims where the agents disagreed, against the claims "
        "where they agreed.</p><div class=row>"
    )
    out.append(
        grouped_bar_chart(
            "Field null, unverified or disputed",
            [
                (r.field, [r.open_in_conflicts, r.relied_open_in_conflicts, r.open_in_agreements])
                for r in report.by_field
            ],
            ["in conflicts", "relied on, in conflicts", "in agreements"],
            width=680,
        )
    )
    out.append(
        _table(
            [
                "field",
                "null in conflicts",
                "unverified in conflicts",
                "disputed in conflicts",
                "open and relied on",
                "open in agreements",
                "asked in escalations",
                "claims open",
                "conflict there",
            ],
            [
                [
                    r.field,
                    f"{pct(r.null_in_conflicts)} ({r.null_in_conflicts.count}/"
                    f"{r.null_in_conflicts.denominator})",
                    f"{pct(r.unverified_in_conflicts)} ({r.unverified_in_conflicts.count})",
                    f"{pct(r.disputed_in_conflicts)} ({r.disputed_in_conflicts.count})",
                    f"{pct(r.relied_open_in_conflicts)} ({r.relied_open_in_conflicts.count})",
                    f"{pct(r.open_in_agreements)} ({r.open_in_agreements.count}/"
                    f"{r.open_in_agreements.denominator})",
                    f"{pct(r.asked)} ({r.asked.count}/{r.asked.denominator})",
                    r.figures.claims,
                    pct(r.figures.conflict),
                ]
                for r in report.by_field
            ],
        )
    )
    out.append("</div>")

    out.append(
        "<h2>Escalations by reason, adjudicator, targeted evidence, parse errors</h2>"
        "<div class=row>"
    )
    out.append(hbar_chart("Escalated, by reason code", list(f.escalation_reasons.items())))
    out.append("<div>")
    out.append(
        _table(
            ["adjudicator", "figure", "count", "denominator"],
            [[k, *_metric_cells(m)] for k, m in f.adjudicator_outcomes.items()],
        )
    )
    out.append(
        _table(
            ["targeted evidence and debate", "figure", "count", "denominator"],
            [
                ["evidence requests", *_metric_cells(f.evidence_requests)],
                ["evidence resolution rate", *_metric_cells(f.evidence_resolution)],
                ["debate rounds", *_metric_cells(f.debate_rounds)],
                ["debate changed an answer", *_metric_cells(f.debate_changed)],
                [
                    "debate calls per round",
                    mean(f.debate_calls),
                    f"{f.debate_calls.count:g}",
                    f.debate_calls.denominator,
                ],
                [
                    "debate tokens per round",
                    mean(f.debate_tokens),
                    f"{f.debate_tokens.count:g}",
                    f.debate_tokens.denominator,
                ],
            ],
        )
    )
    out.append(
        _table(
            ["parse errors", "figure", "count", "denominator"],
            [[k, *_metric_cells(m)] for k, m in f.parse_errors.items()],
        )
    )
    out.append(
        _table(
            ["abstentions (uncertain)", "figure", "count", "denominator"],
            [[k, *_metric_cells(m)] for k, m in f.abstentions.items()],
        )
    )
    out.append("</div></div>")

    out.append("<h2>By loss type</h2>")
    out.append(
        _table(
            ["loss type", *SLICE_HEAD],
            [[r.loss_type, *_slice_cells(r.figures)] for r in report.by_loss_type],
        )
    )
    out.append("<h2>By clause cited</h2>")
    out.append(
        _table(
            ["side", "clause", "verified", *SLICE_HEAD],
            [
                [
                    r.side,
                    r.clause,
                    f"{r.verified.count}/{r.verified.denominator}",
                    *_slice_cells(r.figures),
                ]
                for r in report.by_clause
            ],
            numeric_from=3,
        )
    )

    reviews = report.reviews
    out.append("<h2>Human reviews</h2>")
    out.append(
        f"<p>{reviews.reviewed.count} of {reviews.reviewed.denominator} escalations reviewed: "
        + ", ".join(f"{escape(k)} {v}" for k, v in reviews.decisions.items())
        + ".</p><div class=row>"
    )
    out.append(
        grouped_bar_chart(
            "Reviewer agreed with the agent, by stated confidence",
            [
                (
                    f"{b.low:.1f}–{b.high:.1f}",
                    [a.calibration[i].agreed for a in reviews.agents],
                )
                for i, b in enumerate(reviews.agents[0].calibration)
            ],
            [a.agent for a in reviews.agents],
            diagonal=[(b.low + b.high) / 2 for b in reviews.agents[0].calibration],
        )
    )
    out.append("<div>")
    out.append(
        _table(
            ["reviewer sided with", "figure", "count", "denominator"],
            [[k, *_metric_cells(m)] for k, m in reviews.sided_with.items()],
        )
    )
    out.append(
        _table(
            ["agent", "confidence", "mean stated", "agreed", "count", "denominator"],
            [
                [
                    a.agent,
                    f"{b.low:.1f}–{b.high:.1f}",
                    "–" if b.mean_confidence is None else f"{b.mean_confidence:.2f}",
                    *_metric_cells(b.agreed),
                ]
                for a in reviews.agents
                for b in a.calibration
            ]
            + [[a.agent, "all", "", *_metric_cells(a.agreed)] for a in reviews.agents],
            numeric_from=2,
        )
    )
    out.append("</div></div>")

    out.append(f"<h2>Escalations ({len(report.escalations)})</h2>")
    if report.escalations:
        out.append(
            f'<p class="muted">Links open the review page at {escape(base)} '
            "(<span class=code>claims-crew serve</span>).</p>"
        )
        out.append(
            "<table><thead><tr><th>claim</th><th>outcome</th><th>state</th><th>reasons</th>"
            "<th>question</th><th>review</th></tr></thead><tbody>"
        )
        for e in report.escalations:
            href = f"{base}/escalations/{quote(e.claim_id, safe='')}"
            out.append(
                f'<tr><td><a href="{escape(href)}">{escape(e.claim_id)}</a></td>'
                + "".join(
                    _cell(v)
                    for v in (
                        e.outcome,
                        e.state or "",
                        ", ".join(e.reason_codes),
                        e.question or "",
                        e.review or "",
                    )
                )
                + "</tr>"
            )
        out.append("</tbody></table>")
    else:
        out.append("<p>No escalations.</p>")
    out.append("</main></body></html>\n")
    return "".join(out)
