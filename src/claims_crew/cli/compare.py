"""`claims-crew compare NAME`: a shadow against production, totals first, then claim by claim.

The figures come whole from claims_crew.report.compare; this module only lays them out (rich)
or prints them as JSON. Claim ids, answers and labels come from files and models, so they go
in as plain text, never as markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.text import Text

from claims_crew.cli._output import emit_json, reports_errors
from claims_crew.cli.safe_text import plain
from claims_crew.cli.tables import Table
from claims_crew.settings.command import command

if TYPE_CHECKING:
    from claims_crew.report.compare import ClaimChange, Comparison, Decided
    from claims_crew.report.metrics import Metric

ARROW = " → "
# The field table's columns: the metric of build.FieldRow, and its heading.
FIELD_COLUMNS = (
    ("null_in_conflicts", "null in conflicts"),
    ("unverified_in_conflicts", "unverified"),
    ("disputed_in_conflicts", "disputed"),
    ("relied_open_in_conflicts", "open and relied on"),
    ("open_in_agreements", "open in agreements"),
    ("asked", "asked"),
)
HEADLINE_NAMES = {
    "conflict": "conflict (answers differ)",
    "material_conflict": "material conflict",
    "automatic": "automatic (ACCEPTED + PREFERRED)",
    "automatic_with_adjudicator": "automatic incl. ADJUDICATED",
    "adjudicator": "adjudicator asked",
    "escalated": "escalated",
}
WHERE = {"both": "both", "production_only": "production", "shadow_only": "shadow"}
LABEL_NAMES = {
    "automatic": "automatic (incl. ADJUDICATED)",
    "safe_coverage": "safe coverage",
    "unsafe_automatic": "unsafe automatic decisions",
    "ambiguous_decided": "decided though labelled ambiguous",
}


def _rate(m: Metric) -> str:
    figure = "–" if m.figure is None else f"{m.figure * 100:.1f}%"
    return f"{figure} ({m.count}/{m.denominator})"


def _moved(before: str, after: str) -> str:
    return before if before == after else before + ARROW + after


def _before_after_table(
    title: str,
    first: str,
    names: dict[str, str],
    before: dict[str, Metric],
    after: dict[str, Metric],
) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(first)
    table.add_column("production", justify="right")
    table.add_column("shadow", justify="right")
    for key, name in names.items():
        table.add_row(name, _rate(before[key]), _rate(after[key]))
    return table


def _totals(console: Console, result: Comparison) -> None:
    t = result.totals
    table = Table(title=f"Shadow {result.shadow} against production", title_justify="left")
    table.add_column("claims")
    table.add_column("count", justify="right")
    for name, count in (
        ("decided in production", t.production),
        ("decided in the shadow", t.shadow),
        ("compared (decided in both)", t.compared),
        ("only in production", t.production_only),
        ("only in the shadow", t.shadow_only),
        ("outcome changed", t.outcome_changed),
        ("decided answer changed", t.answer_changed),
        *((f"{agent} agent's answer changed", n) for agent, n in t.agents_changed.items()),
        ("new escalations", t.new_escalations),
        ("resolved escalations", t.resolved_escalations),
    ):
        table.add_row(plain(name), str(count))
    console.print(table)
    if t.transitions:
        moves = Table(title="Outcome changes", title_justify="left")
        for column in ("production", "shadow", "claims"):
            moves.add_column(column, justify="right" if column == "claims" else "left")
        for move in t.transitions:
            moves.add_row(plain(move.before), plain(move.after), str(move.claims))
        console.print(moves)


def _fields(console: Console, result: Comparison) -> None:
    table = Table(
        title="Fields null, unverified or disputed in the claims that disagreed "
        "(production → shadow)",
        title_justify="left",
    )
    table.add_column("field", no_wrap=True)
    for _, heading in FIELD_COLUMNS:
        table.add_column(heading, justify="right", overflow="fold")
    for row in result.by_field:
        table.add_row(
            row.field,
            *(_moved(_rate(row.before[key]), _rate(row.after[key])) for key, _ in FIELD_COLUMNS),
        )
    console.print(table)


def _labels(console: Console, result: Comparison) -> None:
    labels = result.labels
    if labels is None:
        return
    console.print(
        f"{labels.matched} of {labels.labels} labelled claims decided in both",
        markup=False,
    )
    console.print(
        _before_after_table(
            "Against the labels", "metric", LABEL_NAMES, labels.before, labels.after
        )
    )
    for where, unsafe in (("production", labels.unsafe_before), ("shadow", labels.unsafe_after)):
        for m in unsafe:
            console.print(
                plain(
                    f"  unsafe in {where}: {m.claim_id}: {m.outcome} {m.answer}, "
                    f"labelled {m.label}",
                    style="red",
                )
            )


def _side(decided: Decided | None, show: str) -> str:
    if decided is None:
        return "-"
    if show == "fields":
        return ", ".join(f"{f} {s}" for f, s in decided.open_fields.items()) or "none"
    if show == "outcome" and decided.reason_codes:
        return f"{decided.outcome} ({', '.join(decided.reason_codes)})"
    value = decided.answers.get(show) if show in decided.answers else getattr(decided, show)
    return "-" if value is None else str(value)


def _pair(change: ClaimChange, show: str) -> str:
    before, after = _side(change.before, show), _side(change.after, show)
    if change.before is None or change.after is None:
        return before if change.after is None else after
    return _moved(before, after)


def _claims(console: Console, result: Comparison) -> None:
    labelled = result.labels is not None
    table = Table(title="Claim by claim (production → shadow)", title_justify="left")
    columns = ["claim", "in", "outcome", "answer", "policy", "fraud", "escalation", "open fields"]
    if labelled:
        columns += ["label", "verdict"]
    for column in columns:
        # The claim id and the outcomes' words stay whole (cli/tables.py); the rest may fold.
        table.add_column(
            column, overflow="fold", no_wrap=column == "claim", whole_words=column == "outcome"
        )
    for change in result.claims:
        row: list[Text | str] = [
            plain(change.claim_id),
            WHERE[change.presence],
            plain(_pair(change, "outcome")),
            plain(_pair(change, "answer")),
            plain(_pair(change, "policy")),
            plain(_pair(change, "fraud")),
            change.escalation or "",
            plain(_pair(change, "fields")),
        ]
        if labelled:
            row += [plain(change.label or "-"), plain(_pair(change, "verdict"))]
        table.add_row(*row, style=None if change.changed else "dim")
    console.print(table)


def show_comparison(console: Console, result: Comparison) -> None:
    _totals(console, result)
    if not result.totals.compared:
        console.print(
            "No claim is decided in both: run the same inbox into production and into the "
            f"shadow (`{command('run --shadow')} {result.shadow}`).",
            markup=False,
        )
    console.print(
        _before_after_table(
            "Metrics over the compared claims",
            "metric",
            HEADLINE_NAMES,
            result.before,
            result.after,
        )
    )
    _fields(console, result)
    _labels(console, result)
    _claims(console, result)


@click.command("compare")
@click.argument("name")
@click.option(
    "--labels",
    "labels_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A labels file (CSV or JSONL: claim_id, label), as for `claims-crew evaluate`: adds "
    "safe coverage and unsafe automatic decisions before and after.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@reports_errors
def compare_command(name: str, labels_file: Path | None, as_json: bool) -> None:
    """Compare the shadow NAME (`claims-crew run --shadow NAME`) with production, claim by
    claim: outcomes, answers, escalations and open fields before and after."""
    from claims_crew.report.compare import compare_stores
    from claims_crew.report.evaluate import read_labels
    from claims_crew.run.shadows import existing_shadow
    from claims_crew.store import Store

    shadow = existing_shadow(name)  # a bad or missing shadow exits 2 before anything is read
    labels = read_labels(labels_file) if labels_file is not None else None
    result = compare_stores(name, Store(), shadow, labels)
    if as_json:
        emit_json(result)
        return
    show_comparison(Console(), result)
