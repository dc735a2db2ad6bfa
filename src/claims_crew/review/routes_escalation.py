"""One escalation: its side-by-side page, and the form a reviewer decides it with.

A decision names the version of the escalation the reviewer saw; if someone decided it in the
meantime the page comes back with 409 and who did.
"""

from __future__ import annotations

from fastapi import APIRouter, Form, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response

from claims_crew.desk import load_desk
from claims_crew.errors import ConfigError
from claims_crew.review.amounts import payable_on_decision
from claims_crew.review.pages import Pages, Session, to_login
from claims_crew.review.views import age, escalation_detail
from claims_crew.store import AlreadyDecided, NotFound, StoreError
from claims_crew.vocabulary import HUMAN_DECISIONS, parse_stamp

# An escalation's version counts its changes; a number past this is no version it can have, and
# is refused (400) before it reaches the database, whose integers it would overflow.
MAX_VERSION = 2**31 - 1


def escalation_routes(pages: Pages) -> APIRouter:
    """GET /escalations/{claim_id}, POST /escalations/{claim_id}/decide."""
    router = APIRouter()

    @router.get("/escalations/{claim_id}")
    def show(request: Request, claim_id: str) -> Response:
        session = pages.signed_in(request)
        if session is None:
            return to_login()
        return detail_page(pages, request, session, claim_id)

    @router.post("/escalations/{claim_id}/decide")
    def decide(
        request: Request,
        claim_id: str,
        decision: str = Form(""),
        reason: str = Form(""),
        version: int = Form(0, ge=0, le=MAX_VERSION),
        csrf: str = Form(""),
    ) -> Response:
        session = pages.posted(request, csrf)
        if not isinstance(session, Session):
            return session
        try:
            payable = payable_on_decision(pages.store, claim_id, decision)
            pages.store.decide(
                claim_id,
                decision,
                reason,
                session.reviewer,
                expected_version=version,
                rules=load_desk(),
                payable=payable,
            )
        except AlreadyDecided as exc:
            return detail_page(
                pages,
                request,
                session,
                claim_id,
                409,
                f"Already decided ({exc.decision}) by {exc.decided_by} at {exc.decided_at}.",
            )
        except NotFound:
            return PlainTextResponse("No such escalation", status_code=404)
        except StoreError as exc:
            return detail_page(pages, request, session, claim_id, 400, str(exc))
        except ConfigError as exc:  # desk.yaml edited into a broken state while the page runs
            said = f"Nothing was decided: the desk's rules could not be read. {exc}"
            return detail_page(pages, request, session, claim_id, 500, said)
        return RedirectResponse(f"/escalations/{claim_id}", status_code=303)

    return router


def detail_page(
    pages: Pages,
    request: Request,
    session: Session,
    claim_id: str,
    status_code: int = 200,
    error: str | None = None,
) -> Response:
    store = pages.store
    try:
        detail = escalation_detail(store, claim_id)
    except NotFound:
        return PlainTextResponse("No such escalation", status_code=404)
    opened = parse_stamp(detail["opened_at"])
    detail["age"] = age(detail["opened_at"], max(store.clock(), opened))
    return pages.render(
        request,
        "escalation.html",
        {
            "d": detail,
            "reviewer": session.reviewer,
            "csrf": session.csrf,
            "decisions": HUMAN_DECISIONS,
            "error": error,
            "stale": next(iter(pages.stale_now(detail["claim_id"])), None),
            "people": store.reviewer_list(),  # for a lead's reassignment
            "appeals": pages.appeal is not None,
            # Documents a claims system sent after the claim (POST /api/v1/claims/{id}/documents).
            "later": store.later_documents(detail["claim_id"]),
        },
        status_code=status_code,
    )
