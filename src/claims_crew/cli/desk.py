"""`claims-crew review confirm | return | assign`: the four-eyes and assignment commands, and
what `review decide` prints of a proposal (docs/review-desk.md).

The store is imported inside each command, as in review.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from claims_crew.cli._output import emit_json, json_option, reports_errors
from claims_crew.cli.acting import TOKEN_HELP, named_reviewer, signed_in
from claims_crew.cli.clause_lines import show_rests_on
from claims_crew.settings.command import command

if TYPE_CHECKING:
    from claims_crew.store import Proposal, Review

reviewer_option = click.option(
    "--reviewer",
    default=named_reviewer,
    help="Who acts (or CLAIMS_CREW_REVIEWER); checked against the token, whose owner acts "
    "when it is not given. " + TOKEN_HELP,
)


def proposal_json(p: Proposal) -> dict[str, Any]:
    return {
        "claim_id": p.claim_id,
        "escalation_id": p.escalation_id,
        "reviewer": p.reviewer,
        "decision": p.decision,
        "reason": p.reason,
        "proposed_at": p.proposed_at,
        "state": p.state,
        "audit_seq": p.audit_seq,
        "clauses": [c.model_dump(mode="json") for c in p.clauses],
    }


def review_json(r: Review) -> dict[str, Any]:
    return {
        "id": r.id,
        "escalation_id": r.escalation_id,
        "claim_id": r.claim_id,
        "reviewer": r.reviewer,
        "decision": r.decision,
        "reason": r.reason,
        "decided_at": r.decided_at,
        "audit_seq": r.audit_seq,
        "payable": r.payable.model_dump(mode="json") if r.payable else None,
        "clauses": [c.model_dump(mode="json") for c in r.clauses],
    }


def show_decided(done: Review | Proposal, as_json: bool) -> None:
    """What `review decide` and `review confirm` print: the decision, or the proposal made."""
    from claims_crew.store import Proposal

    if isinstance(done, Proposal):
        if as_json:
            emit_json({"proposal": proposal_json(done)})
            return
        click.echo(
            f"{done.claim_id}: {done.decision} proposed by {done.reviewer}, audit entry "
            f"{done.audit_seq}. It needs a second reviewer: {command('review confirm')} "
            f"{done.claim_id} as another reviewer (or review return … --reason '…')."
        )
        return
    if as_json:
        emit_json({"review": review_json(done)})
        return
    on = f" on clause {', '.join(c.clause_id for c in done.clauses)}" if done.clauses else ""
    click.echo(
        f"{done.claim_id}: {done.decision} by {done.reviewer}{on}, audit entry {done.audit_seq}."
    )


@click.command("confirm")
@click.argument("ref", metavar="ID")
@reviewer_option
@click.option("--reason", default="", help="Why; by default the proposal's own reason.")
@json_option
@reports_errors
def review_confirm(ref: str, reviewer: str | None, reason: str, as_json: bool) -> None:
    """Confirm the decision proposed on an escalation: it decides the claim on the clauses the
    proposal rests on, which are shown (a different reviewer from the one who proposed it,
    within their own authority)."""
    from claims_crew.deciding.actions import confirm, confirming
    from claims_crew.store import Store

    store = Store()
    reviewer = signed_in(store, reviewer)
    ready = confirming(store, ref)
    if not as_json and (waiting := ready.waiting) is not None and waiting.clauses:
        heading = f"{waiting.claim_id}: {waiting.reviewer} proposed {waiting.decision} on"
        show_rests_on(waiting.clauses, ready.payable, heading, Console())
    show_decided(confirm(store, ref, ready, reviewer, reason), as_json)


@click.command("return")
@click.argument("ref", metavar="ID")
@reviewer_option
@click.option("--reason", required=True, help="Why it goes back; recorded in the audit trail.")
@json_option
@reports_errors
def review_return(ref: str, reviewer: str | None, reason: str, as_json: bool) -> None:
    """Send the decision proposed on an escalation back: it is open again, undecided."""
    from claims_crew.deciding.actions import return_proposal
    from claims_crew.store import Store

    store = Store()
    reviewer = signed_in(store, reviewer)
    returned = return_proposal(store, ref, reviewer, reason)
    if as_json:
        emit_json({"returned": {**proposal_json(returned), "returned_by": reviewer}})
        return
    click.echo(f"{returned.claim_id}: {returned.reviewer}'s {returned.decision} returned.")


@click.command("assign")
@click.argument("ref", metavar="ID")
@click.option("--to", "to", required=True, help="The reviewer who takes it.")
@click.option(
    "--lead",
    help="The lead reassigning it (role lead); checked against the token, whose owner acts "
    "when it is not given. " + TOKEN_HELP,
)
@click.option("--reason", required=True, help="Why; recorded in the audit trail.")
@json_option
@reports_errors
def review_assign(ref: str, to: str, lead: str | None, reason: str, as_json: bool) -> None:
    """Reassign an open escalation to another reviewer (a lead only; audited)."""
    from claims_crew.deciding.actions import reassign
    from claims_crew.store import Store

    store = Store()
    lead = signed_in(store, lead)
    reassign(store, ref, to, lead, reason)
    claim_id = store.escalation(ref).claim_id
    if as_json:
        emit_json({"assigned": {"claim_id": claim_id, "reviewer": to, "by": lead}})
        return
    click.echo(f"{claim_id}: assigned to {to} by {lead}.")
