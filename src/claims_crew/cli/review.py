"""`claims-crew review`: the queue of escalated claims, and deciding them.

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

from claims_crew.cli._output import emit_json, json_option, reports_errors, working
from claims_crew.cli.acting import TOKEN_VARIABLE, named_reviewer, signed_in
from claims_crew.cli.amount_lines import amount_block
from claims_crew.cli.clause_lines import (
    clause_option,
    confirm_recording,
    named_choice,
    offered_block,
    show_rests_on,
    yes_option,
)
from claims_crew.cli.desk import (
    review_assign,
    review_confirm,
    review_return,
    reviewer_option,
    show_decided,
)
from claims_crew.cli.safe_text import clean, plain
from claims_crew.cli.tables import Table
from claims_crew.cli.unread_lines import unread_lines
from claims_crew.desk import clocks
from claims_crew.review.views import (
    MAX_PAGE,
    age,
    desk_cell,
    escalation_detail,
    escalation_list,
)
from claims_crew.settings.command import command
from claims_crew.vocabulary import FALLBACK_NOTE, HUMAN_DECISIONS

STATUS_STYLES = {
    "verified": "green",
    "quote_mismatch": "yellow",
    "superseded": "yellow",
    "clause_not_found": "red",
}


# ---- review ------------------------------------------------------------------------------


@click.group()
def review() -> None:
    """The queue of escalated claims: list them, show one side by side, decide it."""


@review.command("list")
@click.option("--page", default=1, show_default=True, type=click.IntRange(1, MAX_PAGE))
@click.option("--overdue", is_flag=True, help="Only escalations past their deadline to decide.")
@click.option("--mine", is_flag=True, help="Only those assigned to --reviewer.")
@click.option(
    "--reviewer",
    default=named_reviewer,
    help="Who is asking (for --mine), or CLAIMS_CREW_REVIEWER.",
)
@json_option
@reports_errors
def review_list(page: int, overdue: bool, mine: bool, reviewer: str | None, as_json: bool) -> None:
    """Open escalations, nearest deadline first: claim, amount, why escalated, due, age, and
    who has it."""
    if mine and not reviewer:
        raise click.UsageError("--mine needs --reviewer NAME (or CLAIMS_CREW_REVIEWER)")
    mine_only = reviewer if mine else None
    with working("reading the open escalations from the store", as_json):
        from claims_crew.store import Store

        payload = escalation_list(Store(), page, overdue=overdue, assigned_to=mine_only)
    if as_json:
        emit_json(payload)
        return
    now = clocks.now()  # as the due column counts it (CLAIMS_CREW_NOW moves both)
    which = "overdue" if overdue else "open"
    table = Table(
        title=f"{payload['total']} {which} escalation(s), page {payload['page']}/{payload['pages']}"
    )
    for column in ("claim", "amount", "why", "question", "due", "age"):
        table.add_column(
            column,
            overflow="fold",
            no_wrap=column == "claim",
            whole_words=column in ("why", "due"),
        )
    for row in payload["escalations"]:
        table.add_row(
            plain(row["claim_id"]),
            plain(f"{row['amount'] or '-'} {row['currency'] or ''}".strip()),
            plain(", ".join(row["reason_codes"])),
            plain(row["question"] or ""),
            Text(row["due"], style="red" if row["overdue"] else ""),
            age(row["opened_at"], now),
        )
    console = Console()
    console.print(table)
    for row in payload["escalations"]:  # who has each, and what waits for a second reviewer
        console.print(plain(f"{row['claim_id']}: {row['standing']}; {desk_cell(row)}", style="dim"))
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
        console.print(f"Open one with: {command('review show CLAIM_ID')}", style="dim")


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
        if clause["amended_by"]:
            body.append(plain(f"in force {clause['amended_by']}:", style="bold"))
        if clause["text"]:
            body.append(plain(clause["text"], style="cyan"))
        if clause["amended_by"]:
            original = clause["original"] or "(none: the endorsement added this clause)"
            body.append(plain(f"the form's original: {original}", style="dim"))
        parts.append(Panel(Group(*body), border_style="dim"))
    return Panel(Group(*parts), title=side["side"])


def fact_lines(checks: list[dict[str, Any]]) -> Text:
    """Each fact: verified with its quote and where from, unverified with what intake said."""
    lines = Text("Facts, checked against the claim:", style="bold")
    for f in checks:
        lines.append(f"\n  {f['name']}: ")
        if f["status"] == "verified":
            lines.append(clean(str(f["value"])) + " ")
            lines.append("verified", style="green")
            cited = f.get("cited") or f["where"]
            source = f"“{f['quote']}” ({cited})" if f["quote"] else f"claim file: {f['where']}"
            lines.append(clean(f"  {source}"), style="dim")
            if f.get("low_confidence"):
                lines.append("  low-confidence OCR: look at the page", style="yellow")
        elif f["status"] == "unverified":
            lines.append("unverified", style="red")
            quoted = f": “{f['quote']}”" if f["quote"] else ""
            lines.append(clean(f"  intake said {f['value']}; {f['problem']}{quoted}"))
        else:
            lines.append("UNKNOWN", style="yellow")
    return lines


def _why(detail: dict[str, Any]) -> Text:
    """'Why: …', then each part of the claim's attachments that could not be read."""
    why = plain(f"Why: {detail['reason'] or '-'}")
    return Text("\n").join([why, *unread_lines(detail["unread"])])


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


def _detail_or_where(ref: str) -> dict[str, Any]:
    """The escalation's detail; for a claim nobody was asked to decide, NotFound saying where
    it is shown instead."""
    from claims_crew.errors import NotFound
    from claims_crew.store import Store

    store = Store()

    try:
        return escalation_detail(store, ref)
    except NotFound as exc:
        if store.claim_state(ref) is None:
            raise
        hint = f"no person was asked; see it with: {command(f'claim show {ref}')}"
        raise NotFound(f"{exc}: {hint}") from exc


@review.command("show")
@click.argument("ref", metavar="ID")
@json_option
@reports_errors
def review_show(ref: str, as_json: bool) -> None:
    """One escalation (claim id or number): both claims side by side, clauses, trail, question."""
    with working(f"reading {ref} and re-reading its cited clauses", as_json):
        detail = _detail_or_where(ref)
    if as_json:
        emit_json(detail)
        return
    console = Console()
    claim = detail["claim"] or {}
    head = plain(detail["claim_id"], style="bold")
    head.append(clean(f"  {detail['amount'] or '-'} {detail['currency'] or ''}"))
    number = f" (number {claim['policy_number']})" if claim.get("policy_number") else ""
    head.append(clean(f"  policy {claim.get('policy_id', '-')}{number}"))
    head.append(clean(f"  loss {claim.get('date_of_loss', '-')}"))
    head.append(clean(f"  claimant {claim.get('claimant', '-')}"))
    console.print(head)
    if claim.get("description"):
        console.print(plain(claim["description"], style="italic"))
    console.print(plain(f"Question: {detail['question'] or '-'}", style="bold yellow"))
    if detail["due"]:
        console.print(_clock_line(detail))
    console.print(_why(detail))
    console.print(amount_block(detail))
    if note := detail["models"].get(FALLBACK_NOTE):
        models = ", ".join(f"{a} {m}" for a, m in detail["models"].items() if a != FALLBACK_NOTE)
        console.print(plain(f"Models: {models}; {note}", style="yellow"))
    if detail["fact_checks"]:
        console.print(fact_lines(detail["fact_checks"]))
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
    console.print(plain(f"Assigned: {desk_cell(detail)}"))
    if detail["clauses_named"]:
        heading = "Decided on:" if detail["state"] == "decided" else "Proposed on:"
        ids = ", ".join(c["clause_id"] for c in detail["clauses_named"])
        console.print(plain(f"{heading} {ids}"))
    if detail["clauses_offered"]:
        console.print(offered_block(detail["clauses_offered"]))
    if detail["state"] == "decided":
        console.print(
            plain(
                f"Decided {detail['decision']} by {detail['decided_by']} at {detail['decided_at']}",
                style="green",
            )
        )
        if letter := detail.get("letter"):
            preview = plain(letter["text"] or f"No letter: {letter['why']}")
            console.print(Panel(preview, title="Letter preview", title_align="left"))
    else:
        console.print(
            f"Decide with: {command('review decide')} {clean(detail['claim_id'])} "
            f"--decision {'|'.join(HUMAN_DECISIONS)} --clause ID --reason '…' (as you: your "
            f"token in {TOKEN_VARIABLE})",
            style="dim",
            markup=False,
        )


def _clock_line(detail: dict[str, Any]) -> Text:
    """Due in / overdue by, with the last days to acknowledge and decide."""
    line = Text(detail["due"], style="bold red" if detail["overdue"] else "bold")
    where = f", {detail['jurisdiction']}" if detail["jurisdiction"] else ""
    line.append(
        clean(f"  (decide by {detail['decide_by']}; acknowledge by {detail['acknowledge_by']}")
        + clean(where + ")")
    )
    if detail["excluded_reviewers"]:
        line.append(clean("  not for: " + ", ".join(detail["excluded_reviewers"])))
    return line


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
@clause_option
@yes_option
@reviewer_option
@json_option
@reports_errors
def review_decide(
    ref: str,
    decision: str,
    reason: str,
    clause_ids: tuple[str, ...],
    yes: bool,
    reviewer: str | None,
    as_json: bool,
) -> None:
    """Record a person's decision on an open escalation (a new, linked audit entry), resting
    on the clause(s) named with --clause: each is re-read in the wording in force and shown,
    with the amount payable computed from the first, before it is recorded. Within the
    reviewer's authority, and a proposal where config/desk.yaml asks for four eyes. Only with
    the reviewer's own token."""
    from claims_crew.deciding.actions import decide
    from claims_crew.desk import load_desk
    from claims_crew.store import Store

    store = Store()
    reviewer = signed_in(store, reviewer)
    rules = load_desk()  # before the escalation is looked up, as a broken desk.yaml says first
    claim_id = store.escalation(ref).claim_id
    choice = named_choice(store, claim_id, decision, clause_ids, rules)
    if choice.clauses and not as_json:
        heading = f"{claim_id}: {decision}, resting on"
        show_rests_on(choice.clauses, choice.payable, heading, Console())
        confirm_recording(yes)
    show_decided(decide(store, ref, choice, reason, reviewer), as_json)


review.add_command(review_confirm)
review.add_command(review_return)
review.add_command(review_assign)
