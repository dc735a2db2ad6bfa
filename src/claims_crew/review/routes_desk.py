"""The review desk on the page: confirming or returning a decision proposed for four eyes, and
a lead reassigning an escalation.

Each form carries the session's CSRF token; a refusal (the proposer confirming their own, a
confirmation beyond the reviewer's authority, a proposal closed meanwhile, a reassignment by
someone who is no lead) comes back on the
escalation's page with its reason.
"""

from __future__ import annotations

from fastapi import APIRouter, Form, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response

from claims_crew.deciding.actions import confirm, confirming, reassign, return_proposal
from claims_crew.errors import ConfigError
from claims_crew.review.pages import Pages, Session
from claims_crew.review.routes_escalation import detail_page
from claims_crew.store import AlreadyDecided, NotFound, StoreError


def desk_routes(pages: Pages) -> APIRouter:
    """POST /escalations/{claim_id}/confirm, …/return, and …/assign (a lead's)."""
    router = APIRouter()

    @router.post("/escalations/{claim_id}/{action}")
    def close(
        request: Request,
        claim_id: str,
        action: str,
        reason: str = Form(""),
        to: str = Form(""),
        csrf: str = Form(""),
    ) -> Response:
        if action not in ("confirm", "return", "assign"):
            return PlainTextResponse("Not found", status_code=404)
        session = pages.posted(request, csrf)
        if not isinstance(session, Session):
            return session
        try:
            store = pages.store
            if action == "confirm":
                confirm(store, claim_id, confirming(store, claim_id), session.reviewer, reason)
            elif action == "assign":
                reassign(store, claim_id, to, session.reviewer, reason)
            else:
                return_proposal(store, claim_id, session.reviewer, reason)
        except NotFound:
            return PlainTextResponse("No such escalation", status_code=404)
        except AlreadyDecided as exc:
            return detail_page(pages, request, session, claim_id, 409, str(exc))
        except StoreError as exc:
            return detail_page(pages, request, session, claim_id, 400, str(exc))
        except ConfigError as exc:  # desk.yaml edited into a broken state while the page runs
            said = f"Nothing was confirmed: the desk's rules could not be read. {exc}"
            return detail_page(pages, request, session, claim_id, 500, said)
        return RedirectResponse(f"/escalations/{claim_id}", status_code=303)

    return router
