"""The clauses a person's decision rests on, in the terminal: `review decide --clause` shows each
clause as re-read (its title, its words in force, the endorsement that amended it) with the
amount computed from it, and asks before recording; `review show` lists the clauses on offer,
those the re-read verified first; `review confirm` shows the proposal's.

Policy words are shown through cli/safe_text.py, as a claim's are: text, never markup.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from claims_crew.cli.safe_text import clean, plain
from claims_crew.settings.command import command

if TYPE_CHECKING:
    from claims_crew.deciding.actions import Choice
    from claims_crew.desk import DeskRules
    from claims_crew.models import Payable
    from claims_crew.records import PersonClause
    from claims_crew.store import Store

clause_option = click.option(
    "--clause",
    "clause_ids",
    multiple=True,
    metavar="ID",
    help="A clause the decision rests on (repeatable): re-read in the wording in force and "
    "quoted in the letter. Required for covered and not_covered unless config/desk.yaml "
    "decide_without_clause allows none; `review show ID` lists those on offer.",
)
yes_option = click.option(
    "--yes", is_flag=True, help="Record without asking to confirm the clauses shown."
)


def named_choice(
    store: Store, claim_id: str, decision: str, clause_ids: Sequence[str], rules: DeskRules
) -> Choice:
    """The decision with the clauses named with --clause re-read and its amount
    (deciding/actions.py); a refusal says how to name one and where they are listed."""
    from claims_crew.deciding.actions import choose
    from claims_crew.errors import ClauseRefused, UnknownClause

    try:
        return choose(store, claim_id, decision, clause_ids, rules)
    except UnknownClause as exc:
        raise UnknownClause(exc.clause_id, f"{exc} ({command(_LISTED.format(claim_id))})") from exc
    except ClauseRefused as exc:
        hint = f"Name it with --clause ID ({command(_LISTED.format(claim_id))})."
        raise ClauseRefused(f"{exc} {hint}") from exc


_LISTED = "review show {} lists the clauses on offer"


def clause_panel(clause: PersonClause) -> Panel:
    """One clause as re-read: id and title, the endorsement that amended it, its words."""
    head = plain(f"Clause {clause.clause_id}", style="bold")
    if clause.title:
        head.append(clean(f"  {clause.title}"))
    if clause.kind:
        head.append(clean(f"  ({clause.kind})"), style="dim")
    body: list[RenderableType] = [head]
    if clause.amended_by:
        body.append(plain(f"in force {clause.amended_by}", style="bold"))
    body.append(plain(clause.text or "(no words)", style="cyan"))
    return Panel(Group(*body), border_style="dim")


def amount_line(payable: Payable | None) -> Text:
    """The amount a covered decision pays, computed from the first clause named."""
    if payable is None:
        return plain("Payable: nothing on this decision.")
    if payable.amount is None:
        return plain(f"Payable: no amount ({payable.reason})")
    on = f" (on clause {payable.deciding_clause})" if payable.deciding_clause else ""
    return plain(f"Payable: {payable.amount} {payable.currency}{on}", style="bold")


def show_rests_on(
    clauses: Sequence[PersonClause], payable: Payable | None, heading: str, console: Console
) -> None:
    """The clauses a decision rests on, as re-read, and its amount."""
    console.print(plain(heading, style="bold"))
    for clause in clauses:
        console.print(clause_panel(clause))
    console.print(amount_line(payable))


def interactive() -> bool:
    """Whether a person at a terminal types the command's input."""
    return sys.stdin.isatty()


def confirm_recording(yes: bool) -> None:
    """In a terminal, ask before recording (Abort on no); `--yes`, or input that is not a
    terminal (a script, a pipe), records at once."""
    if yes or not interactive():
        return
    click.confirm("Record this decision on these clauses?", abort=True, err=True)


def offered_block(offered: list[dict[str, Any]]) -> RenderableType:
    """`review show`'s list of the clauses on offer: those the re-read verified, with their
    words, then the ids of every other clause of the wording in force."""
    verified = [c for c in offered if c["verified"]]
    others = [c for c in offered if not c["verified"]]
    parts: list[RenderableType] = [plain("Clauses to decide on:", style="bold")]
    for c in verified:
        line = plain(f"  {c['clause_id']}", style="green")
        line.append(clean(f"  {c['title']}  verified by the re-read"))
        if c["amended_by"]:
            line.append(clean(f"  (in force {c['amended_by']})"))
        parts.append(line)
    if others:
        ids = ", ".join(c["clause_id"] for c in others)
        parts.append(plain(f"  any other clause of the wording in force: {ids}", style="dim"))
    return Group(*parts)
