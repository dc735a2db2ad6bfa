"""The escalation queue: the list of open escalations, page by page, with stale ones marked.

A page number outside 1..MAX_PAGE is refused with 400 (web.py) before anything is read."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from claims_crew.review.pages import Pages, to_login
from claims_crew.review.views import MAX_PAGE, age, escalation_list


def queue_routes(pages: Pages) -> APIRouter:
    """GET / (?overdue=1: only escalations past their deadline to decide)."""
    router = APIRouter()
    store = pages.store

    @router.get("/")
    def queue(
        request: Request,
        page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
        mine: Annotated[int, Query(ge=0, le=1)] = 0,
        overdue: bool = False,
    ) -> Response:
        session = pages.signed_in(request)
        if session is None:
            return to_login()
        mine_only = session.reviewer if mine else None
        listing = escalation_list(store, page, overdue=overdue, assigned_to=mine_only)
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
