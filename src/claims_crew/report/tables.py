"""The HTML page's tables as plain data: a head and rows of values, already formatted.

The page's template draws every `Table` the same way and escapes each value; nothing here writes
markup. The usage section's tables are in usage_tables.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from claims_crew.report.build import FieldRow, Report, ReviewFigures
from claims_crew.report.metrics import Amount, Figures, Metric


@dataclass(frozen=True)
class Table:
    """Columns from `numeric_from` on are right-aligned figures."""

    head: Sequence[str]
    rows: Sequence[Sequence[object]]
    numeric_from: int = 1


@dataclass(frozen=True)
class EscalationLine:
    """One escalation in the page's last table; `href` opens it on the review page."""

    claim_id: str
    href: str
    cells: Sequence[str]


def pct(m: Metric | None) -> str:
    if m is None or m.figure is None:
        return "–"
    return f"{m.figure * 100:.1f}%"


def mean(a: Amount) -> str:
    return "–" if a.figure is None else f"{a.figure:,.2f}"


def _metric_cells(m: Metric) -> list[object]:
    return [pct(m), m.count, m.denominator]


def _metric_table(title: str, metrics: dict[str, Metric]) -> Table:
    return Table(
        [title, "figure", "count", "denominator"],
        [[k, *_metric_cells(m)] for k, m in metrics.items()],
    )


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


def metrics_table(f: Figures) -> Table:
    """The headline metrics, then the means per claim."""
    per_claim = (("model calls", f.model_calls), ("tokens", f.tokens), ("seconds", f.seconds))
    return Table(
        ["metric", "figure", "count", "denominator"],
        [[label, *_metric_cells(m)] for label, m in f.headline()]
        + [
            [f"per claim: {name}", mean(a), f"{a.count:,.2f}", a.denominator]
            for name, a in per_claim
        ],
    )


def _field_cells(r: FieldRow) -> list[object]:
    def share(m: Metric) -> str:
        return f"{pct(m)} ({m.count}/{m.denominator})"

    return [
        r.field,
        share(r.null_in_conflicts),
        f"{pct(r.unverified_in_conflicts)} ({r.unverified_in_conflicts.count})",
        f"{pct(r.disputed_in_conflicts)} ({r.disputed_in_conflicts.count})",
        f"{pct(r.relied_open_in_conflicts)} ({r.relied_open_in_conflicts.count})",
        share(r.open_in_agreements),
        share(r.asked),
        r.figures.claims,
        pct(r.figures.conflict),
    ]


def fields_table(rows: Sequence[FieldRow]) -> Table:
    head = [
        "field",
        "null in conflicts",
        "unverified in conflicts",
        "disputed in conflicts",
        "open and relied on",
        "open in agreements",
        "asked in escalations",
        "claims open",
        "conflict there",
    ]
    return Table(head, [_field_cells(r) for r in rows])


def cascade_tables(f: Figures) -> list[Table]:
    """Beside the escalation reasons: the adjudicator, targeted evidence and debate, parse
    errors and abstentions."""

    def per_round(label: str, a: Amount) -> list[object]:
        return [label, mean(a), f"{a.count:g}", a.denominator]

    evidence_and_debate = Table(
        ["targeted evidence and debate", "figure", "count", "denominator"],
        [
            ["evidence requests", *_metric_cells(f.evidence_requests)],
            ["evidence resolution rate", *_metric_cells(f.evidence_resolution)],
            ["debate rounds", *_metric_cells(f.debate_rounds)],
            ["debate changed an answer", *_metric_cells(f.debate_changed)],
            per_round("debate calls per round", f.debate_calls),
            per_round("debate tokens per round", f.debate_tokens),
        ],
    )
    return [
        _metric_table("adjudicator", f.adjudicator_outcomes),
        evidence_and_debate,
        _metric_table("parse errors", f.parse_errors),
        _metric_table("abstentions (uncertain)", f.abstentions),
    ]


def loss_type_table(report: Report) -> Table:
    return Table(
        ["loss type", *SLICE_HEAD],
        [[r.loss_type, *_slice_cells(r.figures)] for r in report.by_loss_type],
    )


def clause_table(report: Report) -> Table:
    return Table(
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


def review_tables(reviews: ReviewFigures) -> list[Table]:
    """Whom the reviewer sided with, and each agent's agreement by stated confidence."""
    calibration = [
        [
            a.agent,
            f"{b.low:.1f}–{b.high:.1f}",
            "–" if b.mean_confidence is None else f"{b.mean_confidence:.2f}",
            *_metric_cells(b.agreed),
        ]
        for a in reviews.agents
        for b in a.calibration
    ]
    overall = [[a.agent, "all", "", *_metric_cells(a.agreed)] for a in reviews.agents]
    return [
        _metric_table("reviewer sided with", reviews.sided_with),
        Table(
            ["agent", "confidence", "mean stated", "agreed", "count", "denominator"],
            calibration + overall,
            numeric_from=2,
        ),
    ]


def _coded(code: str, external: dict[str, str]) -> str:
    """A reason code with the team's code beside it, where the mapping names one."""
    return f"{code} ({external[code]})" if code in external else code


def escalation_lines(report: Report, base: str) -> list[EscalationLine]:
    """Each escalation, linked to `base`/escalations/<claim id> (the id quoted whole)."""
    return [
        EscalationLine(
            claim_id=e.claim_id,
            href=f"{base}/escalations/{quote(e.claim_id, safe='')}",
            cells=[
                e.outcome,
                e.state or "",
                ", ".join(_coded(c, report.external_codes) for c in e.reason_codes),
                e.question or "",
                e.review or "",
            ],
        )
        for e in report.escalations
    ]
