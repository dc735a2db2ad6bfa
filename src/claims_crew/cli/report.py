"""`claims-crew report` and `claims-crew evaluate`: what the decisions in the store add up to.

The group in cli/__init__.py loads this module only when one of the two runs (or --help lists
them); the report, HTML and evaluation modules are imported inside the commands, so listing them
stays fast.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from claims_crew.cli._output import emit_json, reports_errors, working
from claims_crew.cli.safe_text import markup, plain
from claims_crew.cli.tables import Table
from claims_crew.settings.command import command

if TYPE_CHECKING:
    from claims_crew.report import Amount, Figures, Metric, Report
    from claims_crew.report.build import FieldRow, ReviewFigures
    from claims_crew.report.evaluate import Evaluation
    from claims_crew.report.usage import Cost, CostFigures, LevelTime


def _pct(m: Metric) -> str:
    return "–" if m.figure is None else f"{m.figure * 100:.1f}%"


def _metric_table(title: str, items: list[tuple[str, Metric]], first: str = "metric") -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(first, whole_words=True)  # outcomes and reason codes stay whole
    for column in ("figure", "count", "denominator"):
        table.add_column(column, justify="right")
    for label, m in items:
        table.add_row(plain(label), _pct(m), str(m.count), str(m.denominator))
    return table


def _amount_row(table: Table, label: str, a: Amount) -> None:
    figure = "–" if a.figure is None else f"{a.figure:,.2f}"
    table.add_row(label, figure, f"{a.count:,.2f}", str(a.denominator))


def _slice_table(title: str, keys: list[str], rows: list[tuple[list[str], Figures]]) -> Table:
    table = Table(title=title, title_justify="left")
    for key in keys:
        table.add_column(key, overflow="fold", no_wrap=True)
    for column in ("claims", "conflict", "material", "automatic", "adjudicator", "escalated"):
        table.add_column(column, justify="right")
    for values, f in rows:
        table.add_row(
            *(plain(v) for v in values),
            str(f.claims),
            f"{_pct(f.conflict)} ({f.conflict.count}/{f.conflict.denominator})",
            f"{_pct(f.material_conflict)} ({f.material_conflict.count})",
            f"{_pct(f.automatic)} ({f.automatic.count})",
            f"{_pct(f.adjudicator)} ({f.adjudicator.count})",
            f"{_pct(f.escalated)} ({f.escalated.count})",
        )
    return table


def _money(value: float | None, currency: str | None) -> str:
    return "–" if value is None else f"{value:,.4f} {currency or ''}".rstrip()


def _cost_row(table: Table, label: str, c: Cost | None, currency: str | None) -> None:
    if c is None:
        table.add_row(label, "–", "–", "–", "–")
        return
    table.add_row(
        label, _money(c.figure, currency), _money(c.total, currency), str(c.claims), str(c.unpriced)
    )


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"


def show_usage(console: Console, cost: CostFigures, levels: list[LevelTime]) -> None:
    """Tokens and cost by task, cost per decision, and the time at each level."""
    currency = cost.currency
    tasks = Table(title="Tokens and cost by task", title_justify="left")
    for column in ("task", "claims", "calls", "prompt tokens", "completion tokens", "cost"):
        tasks.add_column(
            column, justify="left" if column == "task" else "right", no_wrap=column == "task"
        )
    for t in cost.by_task:
        tasks.add_row(
            plain(t.task or "(no task)"),
            str(t.claims),
            str(t.calls),
            f"{t.prompt_tokens:,}",
            f"{t.completion_tokens:,}",
            _money(t.cost.total, currency) if t.cost is not None else "–",
        )
    console.print(tasks)
    if currency is None:
        console.print("No cost shown: no price table (config/prices.yaml).", style="dim")
    else:
        per = Table(title=f"Cost ({currency}, at config/prices.yaml)", title_justify="left")
        for column in ("cost", "mean", "total", "priced claims", "unpriced"):
            per.add_column(column, justify="left" if column == "cost" else "right")
        _cost_row(per, "per claim", cost.per_claim, currency)
        _cost_row(per, "per automatic decision", cost.per_automatic_decision, currency)
        _cost_row(
            per,
            "per resolved conflict (" + " or ".join(cost.resolved_conflict_outcomes) + ")",
            cost.per_resolved_conflict,
            currency,
        )
        console.print(per)
        if cost.unpriced_models:
            console.print(
                plain("Models with no price: " + ", ".join(cost.unpriced_models), style="yellow")
            )
    times = Table(title="Time to decision per level (seconds)", title_justify="left")
    for column in ("level", "claims", "mean", "median", "longest"):
        times.add_column(column, justify="left" if column == "level" else "right")
    for level in levels:
        times.add_row(
            level.level,
            str(level.claims),
            _seconds(level.mean),
            _seconds(level.median),
            _seconds(level.longest),
        )
    console.print(times)


def show_report(console: Console, report: Report) -> None:
    """Every table of the report, in the order a reader follows a claim through the cascade."""
    f = report.overall
    window = f"since {report.since.isoformat()}" if report.since else "all decisions"
    console.print(f"[bold]{report.standing_line()}[/bold] ({window})")
    if not f.claims:
        console.print(f"Nothing to report: run `{command('run')}` (or `crewai run`) first.")
        return
    _show_outcomes(console, f, report.external_codes)
    show_usage(console, report.cost, report.time_per_level)
    console.print(_metric_table("Parse errors", list(f.parse_errors.items()), "agent"))
    console.print(
        _metric_table(
            "Abstentions (answered uncertain), of the answers that parsed",
            list(f.abstentions.items()),
            "agent",
        )
    )
    console.print(_fields_table(report.by_field))
    _show_slices(console, report)
    _show_reviews(console, report.reviews)
    from claims_crew.cli.report_desk import show_desk

    show_desk(console, report.desk)


def _show_outcomes(console: Console, f: Figures, external: dict[str, str]) -> None:
    """The headline metrics, outcomes, escalations (each reason with the team's code), and the
    levels before a person."""
    headline = _metric_table("Metrics", f.headline())
    _amount_row(headline, "model calls per claim", f.model_calls)
    _amount_row(headline, "tokens per claim", f.tokens)
    _amount_row(headline, "seconds per claim", f.seconds)
    console.print(headline)
    if f.fallback.count:  # only where CLAIMS_CREW_FALLBACK_MODEL decided a claim
        console.print(_metric_table("Fallback model", [("decided on it", f.fallback)]))
    console.print(_metric_table("Outcomes", list(f.outcomes.items()), "outcome"))
    console.print(
        _metric_table(
            "Escalated, by reason code",
            [
                (f"{c} ({external[c]})" if c in external else c, m)
                for c, m in f.escalation_reasons.items()
            ],
            "reason",
        )
    )
    console.print(
        _metric_table("Adjudicator outcomes", list(f.adjudicator_outcomes.items()), "outcome")
    )
    console.print(
        _metric_table(
            "Targeted evidence (one question to intake before escalating), debate rounds",
            [
                ("evidence requests", f.evidence_requests),
                ("evidence resolution rate", f.evidence_resolution),
                ("debate rounds", f.debate_rounds),
                ("debate changed an answer", f.debate_changed),
            ],
        )
    )
    debate_cost = _metric_table("Debate rounds: cost per round", [], "rebuttal tasks")
    _amount_row(debate_cost, "model calls", f.debate_calls)
    _amount_row(debate_cost, "tokens", f.debate_tokens)
    console.print(debate_cost)


def _fields_table(by_field: list[FieldRow]) -> Table:
    fields = Table(
        title="Fields null, not verified or disputed in the claims that disagreed, and open "
        "when the agents agreed",
        title_justify="left",
    )
    for column in (
        "field",
        "null",
        "not verified",
        "disputed",
        "open, relied on",
        "open when agreed",
        "asked",
    ):
        fields.add_column(
            column, justify="left" if column == "field" else "right", no_wrap=column == "field"
        )
    for r in by_field:
        fields.add_row(
            r.field,
            f"{_pct(r.null_in_conflicts)} ({r.null_in_conflicts.count}/"
            f"{r.null_in_conflicts.denominator})",
            f"{_pct(r.unverified_in_conflicts)} ({r.unverified_in_conflicts.count})",
            f"{_pct(r.disputed_in_conflicts)} ({r.disputed_in_conflicts.count})",
            f"{_pct(r.relied_open_in_conflicts)} ({r.relied_open_in_conflicts.count})",
            f"{_pct(r.open_in_agreements)} ({r.open_in_agreements.count}/"
            f"{r.open_in_agreements.denominator})",
            f"{_pct(r.asked)} ({r.asked.count}/{r.asked.denominator})",
        )
    return fields


def _show_slices(console: Console, report: Report) -> None:
    """The figures by loss type and by clause cited."""
    console.print(
        _slice_table(
            "By loss type", ["loss type"], [([r.loss_type], r.figures) for r in report.by_loss_type]
        )
    )
    console.print(
        _slice_table(
            "By clause cited",
            ["side", "clause", "verified"],
            [
                ([r.side, r.clause, f"{r.verified.count}/{r.verified.denominator}"], r.figures)
                for r in report.by_clause
            ],
        )
    )


def _show_reviews(console: Console, reviews: ReviewFigures) -> None:
    """What people decided on escalations, and how often they agreed with each agent."""
    console.print(
        f"Human reviews: {reviews.reviewed.count} of {reviews.reviewed.denominator} "
        "escalations; " + ", ".join(f"{k} {v}" for k, v in reviews.decisions.items())
    )
    console.print(
        _metric_table("Reviewer sided with", list(reviews.sided_with.items()), "sided with")
    )
    calibration = Table(
        title="Reviewer agreed with the agent, by its confidence", title_justify="left"
    )
    for column in ("agent", "confidence", "mean stated", "agreed", "count", "denominator"):
        calibration.add_column(column, justify="left" if column == "agent" else "right")
    for a in reviews.agents:
        for b in a.calibration:
            calibration.add_row(
                a.agent,
                f"{b.low:.1f}–{b.high:.1f}",
                "–" if b.mean_confidence is None else f"{b.mean_confidence:.2f}",
                _pct(b.agreed),
                str(b.agreed.count),
                str(b.agreed.denominator),
            )
        calibration.add_row(
            a.agent, "all", "", _pct(a.agreed), str(a.agreed.count), str(a.agreed.denominator)
        )
    console.print(calibration)


def show_evaluation(console: Console, ev: Evaluation) -> None:
    console.print(
        f"[bold]{ev.matched} of {ev.labels} labelled claims decided in the store[/bold]"
        + (f"; not decided: {markup(', '.join(ev.unmatched))}" if ev.unmatched else "")
    )
    console.print(
        _metric_table(
            "Evaluation",
            [
                ("automatic (incl. ADJUDICATED)", ev.automatic),
                ("safe coverage", ev.safe_coverage),
                ("unsafe automatic decisions", ev.unsafe_automatic),
                ("decided though labelled ambiguous", ev.ambiguous_decided),
                ("consensus error rate", ev.consensus_error),
                ("consensus errors decided", ev.consensus_error_decided),
                ("escalation precision", ev.escalation_precision),
                ("abstention correctness", ev.abstention_correctness),
            ],
        )
    )
    console.print(
        _metric_table(
            "Escalation precision by reason",
            list(ev.escalation_precision_by_reason.items()),
            "reason",
        )
    )
    table = Table(title="Outcome by label", title_justify="left")
    table.add_column("outcome", no_wrap=True)
    labels = list(ev.label_counts)
    for label in labels:
        table.add_column(plain(label), justify="right")
    for outcome, counts in ev.outcomes_by_label.items():
        table.add_row(plain(outcome), *(str(counts[label]) for label in labels))
    console.print(table)
    if ev.unsafe:
        console.print("[bold red]Unsafe automatic decisions:[/bold red]")
        for m in ev.unsafe:
            console.print(
                f"  {markup(m.claim_id)}: {m.outcome} {markup(m.answer)}, "
                f"labelled {markup(m.label)}"
            )


since_option = click.option(
    "--since",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="Only claims decided on or after this day (UTC), YYYY-MM-DD.",
)


def _day(value: datetime | None) -> date | None:
    return value.date() if value is not None else None


@click.command("report")
@since_option
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the report as one self-contained HTML page.",
)
@click.option(
    "--review-url",
    default="http://127.0.0.1:8000",
    show_default=True,
    help="Where `claims-crew serve` runs, for the HTML page's links to escalations.",
)
@reports_errors
def report_command(
    since: datetime | None, as_json: bool, html_file: Path | None, review_url: str
) -> None:
    """Disagreement, coverage, escalations and calibration over the decisions in the store."""
    with working("reading the decisions in the store for the report", as_json):
        from claims_crew.prices import load_prices
        from claims_crew.report import report
        from claims_crew.resolver.external_codes import load_external_codes
        from claims_crew.store import Store

        result = report(Store(), _day(since), load_prices(), load_external_codes())
    if html_file is not None:
        from claims_crew.report.html import render

        tmp = html_file.with_name(f".{html_file.name}.tmp")
        tmp.write_text(render(result, review_url), encoding="utf-8")
        tmp.replace(html_file)
    if as_json:
        emit_json(result)
    elif html_file is not None:  # the page is the report: the terminal says where it went
        click.echo(f"HTML report written to {html_file}")
    else:
        show_report(Console(), result)


@click.command("evaluate")
@click.argument("labels", type=click.Path(dir_okay=False, path_type=Path))
@since_option
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@reports_errors
def evaluate_command(labels: Path, since: datetime | None, as_json: bool) -> None:
    """Measure the decisions in the store against LABELS (CSV or JSONL: claim_id, label)."""
    from claims_crew.report import load_rows
    from claims_crew.report.evaluate import evaluate, read_labels
    from claims_crew.store import Store

    given = read_labels(labels)  # a bad labels file exits 2 before the store is read
    result = evaluate(load_rows(Store(), _day(since)), given)
    if as_json:
        emit_json(result)
        return
    show_evaluation(Console(), result)
