"""The escalation queue: the list of open escalations, page by page, with stale ones marked."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from claims_crew.review.pages import Pages, to_login
from claims_crew.review.views import age, escalation_list


def queue_routes(pages: Pages) -> APIRouter:
    """GET /."""
    router = APIRouter()
    store = pages.store

    @router.get("/")
    def queue(request: Request, page: int = 1) -> Response:
        session = pages.signed_in(request)
        if session is None:
            return to_login()
        listing = escalation_list(store, page)
        now = store.clock()
        stale = pages.stale_now()
        by_claim = {s["claim_id"]: s for s in stale}
        for row in listing["escalations"]:
            row["age"] = age(row["opened_at"], now)
            row["stale"] = by_claim.get(row["claim_id"])
        return pages.render(
            request,
            "queue.html",
            {
                "listing": listing,
                "stale": stale,
                "reviewer": session.reviewer,
                "csrf": session.csrf,
            },
        )

    return router
