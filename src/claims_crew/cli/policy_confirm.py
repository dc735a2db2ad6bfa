"""`claims-crew policy confirm FORM-NUMBER…`: a lead confirms endorsements' readings.

Each endorsement's reading (its changes as read and as corrected, policy/confirmations.py) is
confirmed as it reads now, by the lead whose sign-in token is given (cli/acting.py): an audit
entry, and its line in policies/confirmations.yaml. Several form numbers confirm each in turn,
so re-confirming every shipped sample after the reader changes is one command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.text import Text

from claims_crew.cli._output import emit_json, json_option, plain_line, reports_errors
from claims_crew.cli.acting import signed_in
from claims_crew.cli.desk import reviewer_option

if TYPE_CHECKING:
    from rich.tree import Tree


@click.command("confirm")
@click.argument("endorsements", nargs=-1, required=True, metavar="FORM-NUMBER...")
@reviewer_option
@json_option
@reports_errors
def policy_confirm(endorsements: tuple[str, ...], reviewer: str | None, as_json: bool) -> None:
    """Confirm endorsements' readings as they read now (`policy changes` shows them): until a
    lead does, and again after its PDF, its corrections or the reader change, a claim on a
    policy it is in force on is never decided without a person. Only a lead, with their token."""
    from claims_crew.deciding.readings import confirm_reading
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.store import Store

    store = Store()
    lead = signed_in(store, reviewer)
    library = PolicyLibrary()
    done: list[dict[str, str]] = []
    for name in endorsements:
        confirmation = confirm_reading(store, library, name, lead)
        done.append({"endorsement": name, **confirmation.model_dump()})
        if not as_json:
            plain_line(
                Console(),
                f"{name}: reading {confirmation.digest[:12]} confirmed by "
                f"{confirmation.by} at {confirmation.at}",
            )
    if as_json:
        emit_json({"confirmed": done})


def add_reading_marks(root: Tree, endorsements: list[dict[str, Any]]) -> None:
    """`policy tree`'s mark on each endorsement in force whose reading a lead has not
    confirmed as it reads now (policy/tree.py's `reading_json`), and how to confirm it."""
    from claims_crew.policy.tree import reading_words

    for e in endorsements:
        name, why = e["endorsement"], reading_words(e)
        if why is None:
            continue
        note = root.add(
            Text(
                f"{name}: reading {why}; claims on this policy go to a person until a lead "
                "confirms it",
                style="bold red",
            )
        )
        note.add(
            Text(
                f"check it with `claims-crew policy changes {name}` (or on the review page, "
                f"/endorsements/{name}), then confirm: `{e['confirm']}`"
            )
        )
