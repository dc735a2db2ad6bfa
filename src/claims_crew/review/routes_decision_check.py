"""The step between a reviewer's decision and its record: what they chose, read back to them.

The escalation's form posts here (POST /escalations/{claim_id}/check) and nothing is recorded:
each clause named is re-read in the wording in force for the claim (its title, its words, the
endorsement that amended it) and the amount is computed from it, as the decision will record
them. The page's Confirm button posts the same choices to …/decide, which reads them again and
records. A refusal (no clause where the desk wants one, a clause the wording lacks, no reason,
a decision made meanwhile) comes back on the escalation's page with its reason.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import Response

from claims_crew.errors import AlreadyDecided, ClaimsCrewError
from claims_crew.review.pages import Pages, Session
from claims_crew.review.routes_escalation import (
    DecisionForm,
    decision_form,
    filled_in,
    read_choice,
    refused,
)
from claims_crew.store import Escalation, Store


def named_clauses(ticked: list[str], typed: str) -> list[str]:
    """The clause ids a reviewer named: the boxes ticked, then the one typed, if any."""
    return [*ticked, typed.strip()] if typed.strip() else list(ticked)


def still_open(store: Store, claim_id: str) -> Escalation:
    """The escalation, while it waits for a decision; AlreadyDecided once one is made."""
    escalation = store.escalation(claim_id)
    if escalation.state != "open":
        raise AlreadyDecided(
            claim_id,
            escalation.decided_by or "",
            escalation.decided_at or "",
            escalation.decision or "",
        )
    return escalation


def decision_check_routes(pages: Pages) -> APIRouter:
    """POST /escalations/{claim_id}/check: the confirmation step."""
    router = APIRouter()

    @router.post("/escalations/{claim_id}/check")
    def check(
        request: Request,
        claim_id: str,
        form: Annotated[DecisionForm, Depends(decision_form)],
        other_clause: str = Form(""),
    ) -> Response:
        session = pages.posted(request, form.csrf)
        if not isinstance(session, Session):
            return session
        try:
            escalation = still_open(pages.store, claim_id)
            ids = named_clauses(form.clause, other_clause)
            choice = read_choice(pages.store, claim_id, form, ids)
        except ClaimsCrewError as exc:
            filled = filled_in(form, other_clause)
            return refused(pages, request, session, claim_id, exc, filled)
        payable = choice.payable
        context = {
            "claim_id": escalation.claim_id,
            "reviewer": session.reviewer,
            "csrf": session.csrf,
            "form": form,
            "clauses": [c.model_dump(mode="json") for c in choice.clauses],
            "payable": payable.model_dump(mode="json") if payable is not None else None,
        }
        return pages.render(request, "decision_check.html", context)

    return router
