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

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response

from claims_crew.desk import load_desk
from claims_crew.errors import AlreadyDecided, ClaimsCrewError, StoreError
from claims_crew.review.amounts import payable_on_decision
from claims_crew.review.decision_clauses import decision_clauses
from claims_crew.review.pages import Pages, Session
from claims_crew.review.routes_escalation import MAX_VERSION, form_refusal, refused


def named_clauses(ticked: list[str], typed: str) -> list[str]:
    """The clause ids a reviewer named: the boxes ticked, then the one typed, if any."""
    return [*ticked, typed.strip()] if typed.strip() else list(ticked)


def decision_check_routes(pages: Pages) -> APIRouter:
    """POST /escalations/{claim_id}/check: the confirmation step."""
    router = APIRouter()

    @router.post("/escalations/{claim_id}/check")
    def check(
        request: Request,
        claim_id: str,
        clause: Annotated[list[str], Form(default_factory=list)],
        decision: str = Form(""),
        reason: str = Form(""),
        version: int = Form(0, ge=0, le=MAX_VERSION),
        other_clause: str = Form(""),
        csrf: str = Form(""),
    ) -> Response:
        session = pages.posted(request, csrf)
        if not isinstance(session, Session):
            return session
        store = pages.store
        try:
            escalation = store.escalation(claim_id)
            if escalation.state != "open":
                raise AlreadyDecided(
                    claim_id,
                    escalation.decided_by or "",
                    escalation.decided_at or "",
                    escalation.decision or "",
                )
            if why := form_refusal(decision, reason):
                raise StoreError(why)
            ids = named_clauses(clause, other_clause)
            clauses = decision_clauses(store, claim_id, decision, ids, load_desk())
            payable = payable_on_decision(store, claim_id, decision, clauses=clauses)
        except ClaimsCrewError as exc:
            return refused(pages, request, session, claim_id, exc)
        context = {
            "claim_id": escalation.claim_id,
            "reviewer": session.reviewer,
            "csrf": session.csrf,
            "decision": decision,
            "reason": reason,
            "version": version,
            "clauses": [c.model_dump(mode="json") for c in clauses],
            "payable": payable.model_dump(mode="json") if payable is not None else None,
        }
        return pages.render(request, "decision_check.html", context)

    return router
