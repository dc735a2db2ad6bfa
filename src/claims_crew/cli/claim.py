"""`claims-crew claim show ID`: any claim, whoever decided it (review/claim_detail.py).

`review show` opens an escalation; a claim the rules or the adjudicator decided has none, and
this is where a reviewer sees it: its state, its decision and who or what made it, its facts,
its letter and its audit entries. In a terminal each part is a panel; elsewhere (a pipe, a log)
each is a heading and plain lines under it, so grep finds a whole line. Everything from the
claim or a model is printed through cli/safe_text.py, never as markup.

The store is imported inside the command, so `claims-crew claim --help` never loads it.
"""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from claims_crew.cli._output import (
    emit_json,
    is_terminal,
    json_option,
    reports_errors,
    working,
)
from claims_crew.cli.review import fact_lines
from claims_crew.cli.safe_text import clean, plain
from claims_crew.cli.unread_lines import unread_lines
from claims_crew.review.desk_views import desk_cell
from claims_crew.settings.command import command

STATE_STYLES = {"decided": "green", "escalated": "yellow", "failed": "red"}


@click.group("claim")
def claim_group() -> None:
    """One claim, whoever decided it: its state, decision, facts, letter and audit entries."""


def _head(detail: dict[str, Any]) -> list[Text]:
    # Where it stands (store/claim_states.py's one phrase), not the automatic outcome.
    state = Text(detail["standing"], style=STATE_STYLES.get(detail["state"], "bold"))
    head = plain(f"{detail['claim_id']}: ", style="bold").append_text(state)
    if detail["reason"]:
        head.append(clean(f" ({detail['reason']})"))
    c = detail["claim"]
    number = f" (number {c['policy_number']})" if c["policy_number"] else ""
    said = plain(
        f"policy {c['policy_id'] or '-'}{number}, claimant {c['claimant'] or '-'}, "
        f"loss {c['date_of_loss'] or '-'}, claimed {c['amount'] or '-'} {c['currency'] or ''}"
    )
    lines = [head, said, plain(f"submitted {detail['submitted_at']}", style="dim")]
    if detail["description"]:
        lines.append(plain(detail["description"], style="italic"))
    return lines + unread_lines(detail["unread"])


def _made_by(made: dict[str, Any]) -> str:
    """Who or what decided: the rules and their rule, the adjudicator's model, or the person."""
    if made["kind"] == "reviewer":
        return f"{made['reviewer']}, a person, at {made['at']}: {made['reviewer_reason']}"
    if made["kind"] == "adjudicator":
        return f"the adjudicator model ({made['model']}), at {made['at']}"
    return f"the rules (rule {made['rule']}), automatically, at {made['at']}"


def _decision(detail: dict[str, Any]) -> list[Text]:
    decision = detail["decision"]
    if decision is None:
        return [plain(f"No decision yet: the claim is {detail['state']}.", style="yellow")]
    said = " ".join(v for v in (decision["outcome"], decision["answer"]) if v)
    codes = f" ({', '.join(decision['reason_codes'])})" if decision["reason_codes"] else ""
    if detail["made_by"]["kind"] == "reviewer":  # the person's answer leads; the rules' is history
        lines = [
            plain(f"{decision['answer']}", style="bold"),
            plain(f"by {_made_by(detail['made_by'])}"),
            plain(f"before them the rules said: {decision['outcome']}{codes}", style="dim"),
        ]
    else:
        lines = [
            plain(f"{said}{codes}", style="bold"),
            plain(f"by {_made_by(detail['made_by'])}"),
        ]
    if detail["rule_reason"]:
        lines.append(plain(f"why: {detail['rule_reason']}", style="dim"))
    if amount := detail["amount"]:
        payable = f"{amount['amount']} {amount['currency']}" if amount["amount"] else "none"
        why = f" ({amount['reason']})" if amount["reason"] else ""
        lines.append(plain(f"payable: {payable}{why}"))
    escalation = detail["escalation"]
    if escalation is None:
        lines.append(plain("no escalation: no person was asked", style="dim"))
    elif escalation["state"] == "open":
        lines.append(plain(f"escalation {escalation['id']} open: {escalation['question']}"))
        lines.append(plain(f"who has it: {desk_cell(escalation)}"))
        lines.append(plain(f"decide with: {command('review show')} {detail['claim_id']}"))
    else:
        lines.append(
            plain(
                f"escalation {escalation['id']} {escalation['state']} by "
                f"{escalation['decided_by']} at {escalation['decided_at']}"
            )
        )
    return lines


def _letter(letter: dict[str, Any]) -> list[Text]:
    issued = [
        plain(f"issued {i['format']} at {i['issued_at']}, sha256 {i['sha256']}, entry {i['seq']}")
        for i in letter["issued"]
    ]
    if not letter["available"]:
        return [plain(f"no letter: {letter['why']}", style="yellow"), *issued]
    if not issued:
        issued = [plain("not issued yet")]
    return [*issued, plain(f"write it with: {letter['command']}", style="dim")]


def _trail(entries: list[dict[str, Any]]) -> list[Text]:
    return [
        plain(
            f"#{e['seq']} {e['at']} {e['kind']}"
            + (f" by {e['actor']}" if e["actor"] != e["kind"] else "")
            + (f": {e['answer']}" if e["answer"] else "")
            + (f" ({e['reason']})" if e["reason"] else "")
        )
        for e in entries
    ] or [plain("no entries")]


def sections(detail: dict[str, Any]) -> list[tuple[str, list[Text]]]:
    """The parts shown, in order, each a title and its lines."""
    facts = [fact_lines(detail["facts"])] if detail["facts"] else [plain("no facts recorded")]
    return [
        ("Claim", _head(detail)),
        ("Decision", _decision(detail)),
        ("Facts", facts),
        ("Letter", _letter(detail["letter"])),
        ("Audit entries", _trail(detail["trail"])),
    ]


def show_detail(console: Console, detail: dict[str, Any]) -> None:
    """Panels in a terminal; a heading and indented plain lines elsewhere."""
    for title, lines in sections(detail):
        if is_terminal(console):
            console.print(Panel(Group(*lines), title=title, title_align="left"))
            continue
        console.print(f"{title}:", style="bold", highlight=False)
        for line in lines:
            for part in line.split("\n"):
                console.print(Text("  ").append_text(part), soft_wrap=True, highlight=False)


@claim_group.command("show")
@click.argument("claim_id", metavar="ID")
@json_option
@reports_errors
def claim_show(claim_id: str, as_json: bool) -> None:
    """Any claim, decided by the rules, the adjudicator or a person: its state, its decision and
    who made it, its facts, its letter and its audit entries. Exits 3 for an unknown claim."""
    with working(f"reading {claim_id} from the store", as_json):
        from claims_crew.review.claim_detail import claim_detail
        from claims_crew.store import Store

        detail = claim_detail(Store(), claim_id)
    if as_json:
        emit_json(detail)
        return
    show_detail(Console(), detail)
