"""`claims-crew review | reviewer`: the review queue and the people who work it.

Everything printed from a claim or a model goes through cli/safe_text.py: rich `Text`, never
markup, with control characters shown as escapes, so a claim description cannot restyle or
rewrite the terminal. Store errors become a message and an exit code through
cli/_output.py (docs/reviewing-escalations.md).

The store (SQLAlchemy) is imported inside each command, so `claims-crew review --help` never
loads it.
"""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from claims_crew.cli._output import emit_json, json_option, reports_errors
from claims_crew.cli.safe_text import clean, plain
from claims_crew.cli.tables import Table
from claims_crew.review.views import MAX_PAGE, age, escalation_detail, escalation_list
from claims_crew.vocabulary import FALLBACK_NOTE, HUMAN_DECISIONS, utc_now

STATUS_STYLES = {"verified": "green", "quote_mismatch": "yellow", "clause_not_found": "red"}


# ---- review ------------------------------------------------------------------------------


@click.group()
def review() -> None:
    """The queue of escalated claims: list them, show one side by side, decide it."""


@review.command("list")
@click.option("--page", default=1, show_default=True, type=click.IntRange(1, MAX_PAGE))
@json_option
@reports_errors
def review_list(page: int, as_json: bool) -> None:
    """Open escalations, oldest first: claim, amount, why escalated, and age."""
    from claims_crew.store import Store

    payload = escalation_list(Store(), page)
    if as_json:
        emit_json(payload)
        return
    now = utc_now()
    table = Table(
        title=f"{payload['total']} open escalation(s), page {payload['page']}/{payload['pages']}"
    )
    for column in ("claim", "amount", "why", "question", "age"):
        table.add_column(
            column, overflow="fold", no_wrap=column == "claim", whole_words=column == "why"
        )
    for row in payload["escalations"]:
        table.add_row(
            plain(row["claim_id"]),
            plain(f"{row['amount'] or '-'} {row['currency'] or ''}".strip()),
            plain(", ".join(row["reason_codes"])),
            plain(row["question"] or ""),
            age(row["opened_at"], now),
        )
    console = Console()
    console.print(table)
    changed = payload["changed_after_decision"]
    if changed:
        console.print(
            plain(
                f"{len(changed)} claim file(s) changed after their decision and were not "
                "decided again: " + ", ".join(c["claim_id"] for c in changed),
                style="yellow",
            )
        )
    if payload["escalations"]:
        console.print("Open one with: claims-crew review show CLAIM_ID", style="dim")


def _side_panel(side: dict[str, Any]) -> Panel:
    parts: list[Any] = []
    if not side["parsed"]:
        parts.append(plain(f"parse_error: {side['problem']}", style="red"))
        parts.append(plain(side["raw"] or "", style="dim"))
        return Panel(Group(*parts), title=side["side"])
    holds = {True: "evidence holds", False: "evidence fails", None: "not re-read"}[side["holds"]]
    header = plain(f"{side['answer']}  confidence {side['confidence']:.2f}\n", style="bold")
    if side.get("abstain_reason"):
        header.append(f"abstains: {side['abstain_reason']}", style="yellow")
    else:
        header.append(f"{holds}", style="green" if side["holds"] else "red")
    header.append("  ·  " + ("tool-sourced" if side["source_checked"] else "not all from tool"))
    if side["reason_codes"]:
        header.append("\n" + clean(", ".join(side["reason_codes"])), style="yellow")
    parts.append(header)
    facts = Text("facts relied on: ", style="bold")
    facts.append(
        clean(
            ", ".join(
                f"{f['name']}={'UNKNOWN' if f['value'] is None else f['value']}"
                for f in side["facts_relied_on"]
            )
        )
        or "none"
    )
    parts.append(facts)
    if side["rationale"]:
        parts.append(plain(side["rationale"], style="italic"))
    for clause in side["clauses"]:
        title = plain(clause["cited"], style="bold")
        if clause["clause_id"] and clause["clause_id"] != clause["cited"]:
            title.append(" → " + clean(clause["clause_id"]))
        if clause["title"]:
            title.append("  " + clean(clause["title"]))
        if clause["kind"]:
            title.append(f"  ({clean(clause['kind'])})", style="dim")
        status = Text(
            f"[{clause['status_label']}]", style=STATUS_STYLES.get(clause["status"] or "", "")
        )
        status.append(" tool-sourced" if clause["tool_sourced"] else " from memory")
        body = [title, status, plain(f"quote: “{clause['quote']}”")]
        if clause["text"]:
            body.append(plain(clause["text"], style="cyan"))
        parts.append(Panel(Group(*body), border_style="dim"))
    return Panel(Group(*parts), title=side["side"])


def _fact_lines(checks: list[dict[str, Any]]) -> Text:
    """Each fact: verified with its quote and where from, unverified with what intake said."""
    lines = Text("Facts, checked against the claim:", style="bold")
    for f in checks:
        lines.append(f"\n  {f['name']}: ")
        if f["status"] == "verified":
            lines.append(clean(str(f["value"])) + " ")
            lines.append("verified", style="green")
            source = f"“{f['quote']}” ({f['where']})" if f["quote"] else f"claim file: {f['where']}"
            lines.append(clean(f"  {source}"), style="dim")
        elif f["status"] == "unverified":
            lines.append("unverified", style="red")
            quoted = f": “{f['quote']}”" if f["quote"] else ""
            lines.append(clean(f"  intake said {f['value']}; {f['problem']}{quoted}"))
        else:
            lines.append("UNKNOWN", style="yellow")
    return lines


def _usage_table(tokens: dict[str, dict[str, int]], stages: dict[str, float]) -> Table:
    """Each task's calls and tokens, and how long each stage of the review took."""
    times = ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds in stages.items())
    table = Table(title="Model calls and tokens" + (f" ({times})" if times else ""))
    for column in ("task", "calls", "prompt tokens", "completion tokens"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task, used in tokens.items():
        table.add_row(
            plain(task or "(no task)"),
            str(used["calls"]),
            f"{used['prompt']:,}",
            f"{used['completion']:,}",
        )
    return table


@review.command("show")
@click.argument("ref", metavar="ID")
@json_option
@reports_errors
def review_show(ref: str, as_json: bool) -> None:
    """One escalation (claim id or number): both claims side by side, clauses, trail, question."""
    from claims_crew.store import Store

    detail = escalation_detail(Store(), ref)
    if as_json:
        emit_json(detail)
        return
    console = Console()
    claim = detail["claim"] or {}
    head = plain(detail["claim_id"], style="bold")
    head.append(clean(f"  {detail['amount'] or '-'} {detail['currency'] or ''}"))
    head.append(
        clean(f"  policy {claim.get('policy_id', '-')}  loss {claim.get('date_of_loss', '-')}")
    )
    head.append(clean(f"  claimant {claim.get('claimant', '-')}"))
    console.print(head)
    if claim.get("description"):
        console.print(plain(claim["description"], style="italic"))
    console.print(plain(f"Question: {detail['question'] or '-'}", style="bold yellow"))
    console.print(plain(f"Why: {detail['reason'] or '-'}"))
    if note := detail["models"].get(FALLBACK_NOTE):
        models = ", ".join(f"{a} {m}" for a, m in detail["models"].items() if a != FALLBACK_NOTE)
        console.print(plain(f"Models: {models}; {note}", style="yellow"))
    if detail["fact_checks"]:
        console.print(_fact_lines(detail["fact_checks"]))
    if asked := detail.get("targeted"):
        # The one question intake was asked before escalating, and what the code found of it.
        found = "; ".join(
            f"{a['name']} {a['status']}" + (f" ({a['problem']})" if a["problem"] else "")
            for a in asked["answers"]
        )
        console.print(plain(f"Asked intake: {asked['question']}"))
        console.print(plain(f"Answer: {found or asked['parse_error'] or 'nothing usable'}"))
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    grid.add_row(_side_panel(detail["sides"]["policy"]), _side_panel(detail["sides"]["fraud"]))
    console.print(grid)
    trail = Table(title="Resolver trail", show_lines=False)
    for column in ("rule", "fired", "code", "detail"):
        trail.add_column(column, overflow="fold", no_wrap=column in ("rule", "code"))
    for step in detail["trail"]:
        trail.add_row(
            step["rule"],
            "yes" if step["fired"] else "no",
            step["reason_code"] or "",
            plain(step["detail"]),
        )
    console.print(trail)
    if detail["tokens_by_task"]:
        console.print(_usage_table(detail["tokens_by_task"], detail["stage_seconds"]))
    if detail["state"] == "decided":
        console.print(
            plain(
                f"Decided {detail['decision']} by {detail['decided_by']} at {detail['decided_at']}",
                style="green",
            )
        )
    else:
        console.print(
            f"Decide with: claims-crew review decide {clean(detail['claim_id'])} "
            f"--decision {'|'.join(HUMAN_DECISIONS)} --reason '…' --reviewer NAME",
            style="dim",
            markup=False,
        )


@review.command("stale")
@json_option
@reports_errors
def review_stale(as_json: bool) -> None:
    """Decisions that expired, or whose policy, corrections, config or claim file changed."""
    from claims_crew.cli.revalidate import show_stale

    show_stale(as_json)


@review.command("decide")
@click.argument("ref", metavar="ID")
@click.option("--decision", required=True, type=click.Choice(HUMAN_DECISIONS))
@click.option("--reason", required=True, help="Why; required, recorded in the audit trail.")
@click.option("--reviewer", required=True, help="A name added with `claims-crew reviewer add`.")
@json_option
@reports_errors
def review_decide(ref: str, decision: str, reason: str, reviewer: str, as_json: bool) -> None:
    """Record a person's decision on an open escalation (a new, linked audit entry)."""
    from claims_crew.store import Store

    done = Store().decide(ref, decision, reason, reviewer)
    if as_json:
        emit_json(
            {
                "review": {
                    "id": done.id,
                    "escalation_id": done.escalation_id,
                    "claim_id": done.claim_id,
                    "reviewer": done.reviewer,
                    "decision": done.decision,
                    "reason": done.reason,
                    "decided_at": done.decided_at,
                    "audit_seq": done.audit_seq,
                }
            }
        )
        return
    click.echo(
        f"{done.claim_id}: {done.decision} by {done.reviewer}, audit entry {done.audit_seq}."
    )


# ---- reviewers ---------------------------------------------------------------------------


@click.group()
def reviewer() -> None:
    """People who may decide escalations."""


@reviewer.command("add")
@click.argument("name")
@json_option
@reports_errors
def reviewer_add(name: str, as_json: bool) -> None:
    """Add a reviewer and print their sign-in token once (only its hash is kept)."""
    from claims_crew.store import Store

    token = Store().add_reviewer(name)
    if as_json:
        emit_json({"reviewer": name.strip(), "token": token})
        return
    click.echo(f"Reviewer {name.strip()} added. Sign-in token (shown once, keep it safe):")
    click.echo(token)
