"""What the queue and an escalation show of the review desk: who has each escalation, and the
decision proposed on it that waits for a second reviewer (store/desk.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from claims_crew.desk.assignment import NONE_FITS
from claims_crew.settings.command import command

if TYPE_CHECKING:
    from claims_crew.store import Proposal, Store


def _proposal(p: Proposal | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "reviewer": p.reviewer,
        "decision": p.decision,
        "reason": p.reason,
        "proposed_at": p.proposed_at,
        # The clauses it rests on, as re-read when proposed: what confirming it decides on.
        "clauses": [c.model_dump(mode="json") for c in p.clauses],
    }


# Why an escalation the desk assigned has nobody: no reviewer at all yet (a new desk: the
# escalations go out as soon as one is added), or why the rule chose nobody, as recorded when
# it ran (desk/assignment.py; NONE_FITS for assignments kept before the reason was).
NO_REVIEWER_YET = "no reviewer yet: add one with `{}`"


def with_desk(store: Store, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The queue's rows, each with `assigned_to` (None: nobody fits, or from before the desk),
    `unassigned_why` (when the desk found nobody: NO_REVIEWER_YET, or the reason recorded) and
    `proposal`
    (the decision waiting for a second reviewer, if any)."""
    claims = [row["claim_id"] for row in rows]
    assigned = store.assignees(claims)
    waiting = store.proposals_waiting(claims)
    nobody = any(assigned.get(c, "") is None for c in claims) and not store.has_reviewers()
    whys = store.unassigned_whys(claims) if not nobody else {}
    return [
        {
            **row,
            "assigned": row["claim_id"] in assigned,
            "assigned_to": assigned.get(row["claim_id"]),
            "unassigned_why": (
                NO_REVIEWER_YET.format(command("reviewers add NAME"))
                if nobody
                else whys.get(row["claim_id"], NONE_FITS)
            )
            if assigned.get(row["claim_id"], "") is None
            else None,
            "proposal": _proposal(waiting.get(row["claim_id"])),
        }
        for row in rows
    ]


def desk_detail(store: Store, claim_id: str) -> dict[str, Any]:
    """One escalation's `assigned_to` and waiting `proposal`."""
    [row] = with_desk(store, [{"claim_id": claim_id}])
    return {k: row[k] for k in ("assigned", "assigned_to", "unassigned_why", "proposal")}


def desk_cell(row: dict[str, Any]) -> str:
    """Who has an escalation, as the CLI's queue shows it, with any proposal waiting."""
    who = row["assigned_to"] or row["unassigned_why"] or "-"
    if (p := row["proposal"]) is not None:
        who += f"; {p['decision']} proposed by {p['reviewer']}, to confirm"
    return str(who)
