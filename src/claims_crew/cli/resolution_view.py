"""A Resolution for people (rich) and for machines (JSON)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from claims_crew.cli.safe_text import markup
from claims_crew.cli.tables import Table
from claims_crew.resolver import AdjudicationCheck, Resolution
from claims_crew.vocabulary import ABSTENTION

_STATUS_MARK = {
    "verified": "✓ verified",
    "quote_mismatch": "✗ misquoted",
    "clause_not_found": "✗ not found",
    "superseded": "✗ superseded wording",
}


def resolution_json(
    resolution: Resolution, check: AdjudicationCheck | None = None
) -> dict[str, Any]:
    """The resolution's fields, plus the adjudicator's checked answer when it was asked."""
    payload = resolution.model_dump(mode="json")
    payload["adjudication"] = check.model_dump(mode="json") if check is not None else None
    return payload


def show_resolution(
    console: Console, claim_id: str, resolution: Resolution, check: AdjudicationCheck | None = None
) -> None:
    winner = f" → {resolution.winner}" if resolution.winner else ""
    answer = f" ({markup(resolution.answer)})" if resolution.answer else ""
    console.print(f"[bold]{markup(claim_id)}: {resolution.outcome}{winner}{answer}[/bold]")
    console.print(f"rule: {resolution.rule}   reasons: {', '.join(resolution.reason_codes) or '-'}")
    console.print(markup(resolution.reason), highlight=False)
    if resolution.question:
        console.print(f"[bold]Question:[/bold] {markup(resolution.question)}", highlight=False)
    show_targeted(console, resolution)
    sides = Table(title="Evidence, re-read from the policy")
    for column in ("side", "answer", "cited", "clause", "kind", "re-read", "tool"):
        sides.add_column(column, overflow="fold", no_wrap=column in ("clause", "kind"))
    for side, review in resolution.sides.items():
        if review.abstain_reason is not None and not review.clauses:
            sides.add_row(
                side, f"{markup(review.answer)} ({review.abstain_reason})", "-", "-", "-", "-", "-"
            )
        elif not review.clauses:
            sides.add_row(
                side,
                f"{markup(review.answer)} {review.confidence}",
                "-",
                "-",
                "-",
                "no evidence",
                "-",
            )
        for c in review.clauses:
            sides.add_row(
                side,
                f"{markup(review.answer)} {review.confidence:.2f}"
                if review.confidence is not None
                else "-",
                markup(c.cited),
                markup(f"{c.clause_id or '-'} {c.title or ''}"),
                f"{c.kind or '-'}"
                + (
                    ""
                    if c.supports_answer or review.answer == ABSTENTION
                    else " (does not support)"
                ),
                _STATUS_MARK[c.status],
                "yes" if c.tool_sourced else "memory",
            )
    if resolution.sides:
        console.print(sides)
    trail = Table(title="Trail")
    for column in ("rule", "fired", "reason", "detail"):
        trail.add_column(column, overflow="fold", no_wrap=column in ("rule", "reason"))
    for step in resolution.trail:
        trail.add_row(
            step.rule, "yes" if step.fired else "no", step.reason_code or "", markup(step.detail)
        )
    console.print(trail)
    if check is not None:
        verdict = "accepted" if check.valid else "refused: " + "; ".join(check.problems)
        console.print(f"adjudicator: {markup(check.choice or '-')} — {markup(verdict)}")


def show_targeted(console: Console, resolution: Resolution) -> None:
    """The one question intake was asked about the conflict's open facts, and each answer as
    the code checked it; nothing when none was asked."""
    asked = resolution.targeted
    if asked is None:
        return
    settled = "settled the conflict" if asked.settled else "did not settle it"
    console.print(
        f"[bold]Asked intake:[/bold] {markup(asked.question)} ({settled}; before: "
        f"{asked.before.outcome} by {asked.before.rule})",
        highlight=False,
    )
    if asked.parse_error:
        console.print(f"  answer unreadable: {markup(asked.parse_error)}", highlight=False)
    for check in asked.answers:
        said = (
            f"{markup(check.value)} from {markup(check.cited() or '-')}" if check.value else "null"
        )
        verdict = check.status + (f" ({markup(check.problem)})" if check.problem else "")
        console.print(f"  {check.name}: {said}: {verdict}", highlight=False)
