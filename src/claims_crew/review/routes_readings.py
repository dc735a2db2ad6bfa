"""Endorsement readings on the page: each endorsement's reading as a lead checks it, and the form
that confirms it (policy/reading_review.py lays it out; deciding/readings.py confirms it, as
`claims-crew policy confirm` does).

The confirm form carries the session's CSRF token and the digest of the reading the page showed:
a reading that changed since (a new PDF, a correction, the reader) is refused with a message
and the page shows the reading as it is now, never confirmed unseen. Every reviewer may look;
only a lead may confirm, and anyone else is refused on the page (OutsideAuthority). A reading
that is wrong is not confirmed but corrected on the endorsement's entry in policies/index.yaml
(docs/policy-library.md, "Corrections"), then checked here again.

The policies are read afresh at each request, as the desk's actions read them, so a reading
confirmed at the command line shows here at once; each endorsement's reading is read once while
its PDF, its form and their entries are unchanged (PolicyLibrary.reading).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response

from claims_crew.deciding.readings import confirm_reading
from claims_crew.errors import OutsideAuthority, PolicyError, StoreError
from claims_crew.policy.confirmations import reading_state
from claims_crew.policy.library import PolicyLibrary
from claims_crew.policy.reading_review import review_reading
from claims_crew.review.pages import Pages, Session, to_login


def readings_routes(pages: Pages) -> APIRouter:
    """GET /endorsements, GET /endorsements/{name}, POST /endorsements/{name}/confirm."""
    router = APIRouter()

    @router.get("/endorsements")
    def listing(request: Request) -> Response:
        session = pages.signed_in(request)
        if session is None:
            return to_login()
        library = PolicyLibrary()
        rows = []
        for name, entry in sorted(library.endorsements.items()):
            confirmation = library.confirmations.get(name)
            try:
                state: str = reading_state(library.reading(name).digest, confirmation)
            except PolicyError as exc:  # an unreadable PDF: shown, not a broken list
                state = f"unreadable: {exc.message}"
            rows.append({"name": name, "entry": entry, "state": state, "by": confirmation})
        return pages.render(
            request,
            "readings.html",
            {"rows": rows, "reviewer": session.reviewer, "csrf": session.csrf},
        )

    @router.get("/endorsements/{name}")
    def reading(request: Request, name: str) -> Response:
        session = pages.signed_in(request)
        if session is None:
            return to_login()
        return reading_page(pages, request, session, name)

    @router.post("/endorsements/{name}/confirm")
    def confirm(
        request: Request, name: str, digest: str = Form(""), csrf: str = Form("")
    ) -> Response:
        session = pages.posted(request, csrf)
        if not isinstance(session, Session):
            return session
        try:
            confirm_reading(pages.store, PolicyLibrary(), name, session.reviewer, seen=digest)
        except OutsideAuthority as exc:
            return reading_page(pages, request, session, name, 403, str(exc))
        except StoreError as exc:  # the reading changed since the page showed it
            return reading_page(pages, request, session, name, 409, f"Not confirmed: {exc}.")
        except PolicyError as exc:
            if exc.code == "unknown_endorsement":
                return PlainTextResponse("No such endorsement", status_code=404)
            raise
        # A form number may hold spaces ("CP 01 40"): the Location header carries it quoted.
        return RedirectResponse(f"/endorsements/{quote(name, safe='')}", status_code=303)

    return router


def reading_page(
    pages: Pages,
    request: Request,
    session: Session,
    name: str,
    status_code: int = 200,
    error: str | None = None,
) -> Response:
    """One endorsement's reading as it reads now, with its confirmation and the confirm form."""
    library = PolicyLibrary()
    try:
        review = review_reading(library, name)
    except PolicyError as exc:
        if exc.code == "unknown_endorsement":
            return PlainTextResponse("No such endorsement", status_code=404)
        raise
    confirmation = library.confirmations.get(name)
    context: dict[str, Any] = {
        "r": review,
        "state": reading_state(review.digest, confirmation),
        "confirmation": confirmation,
        "is_lead": _is_lead(pages, session.reviewer),
        "error": error,
        "reviewer": session.reviewer,
        "csrf": session.csrf,
    }
    return pages.render(request, "reading.html", context, status_code=status_code)


def _is_lead(pages: Pages, reviewer: str) -> bool:
    """Whether to offer the confirm form: a lead's. The confirmation itself is judged again
    when it is recorded (desk/authority.py), whatever the page offered."""
    rows = pages.store.reviewer_list()
    return any(row.name == reviewer and row.settings.role == "lead" for row in rows)
