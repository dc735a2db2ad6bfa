"""One escalation: its side-by-side page, and the form a reviewer decides it with.

The form names the decision, its reason and the clause(s) it rests on; it goes first to the
confirmation step (routes_decision_check.py), whose Confirm button posts here to record it.
A decision names the version of the escalation the reviewer saw; if someone decided it in the
meantime the page comes back with 409 and who did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response

from claims_crew.deciding import actions
from claims_crew.deciding.actions import Choice
from claims_crew.errors import ClaimsCrewError, ConfigError
from claims_crew.review.clause_offer import clause_offer
from claims_crew.review.pages import Pages, Session, to_login
from claims_crew.review.views import age, escalation_detail
from claims_crew.store import AlreadyDecided, NotFound, Store, StoreError
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
        request: Request, claim_id: str, form: Annotated[DecisionForm, Depends(decision_form)]
    ) -> Response:
        session = pages.posted(request, form.csrf)
        if not isinstance(session, Session):
            return session
        try:
            # Read again, not taken from the confirmation step: the form names the clauses,
            # the policy gives their words, and the wording in force may have moved since.
            choice = read_choice(pages.store, claim_id, form, form.clause)
            actions.decide(
                pages.store,
                claim_id,
                choice,
                form.reason,
                session.reviewer,
                expected_version=form.version,
            )
        except ClaimsCrewError as exc:
            return refused(pages, request, session, claim_id, exc, filled_in(form))
        return RedirectResponse(f"/escalations/{claim_id}", status_code=303)

    return router


@dataclass(frozen=True)
class DecisionForm:
    """A decision as the page's forms post it: to the confirmation step and to be recorded."""

    decision: str
    reason: str
    version: int
    clause: list[str]  # the clause ids named, as given
    csrf: str


def decision_form(
    clause: Annotated[list[str], Form(default_factory=list)],
    decision: str = Form(""),
    reason: str = Form(""),
    version: int = Form(0, ge=0, le=MAX_VERSION),
    csrf: str = Form(""),
) -> DecisionForm:
    return DecisionForm(decision, reason, version, clause, csrf)


def read_choice(store: Store, claim_id: str, form: DecisionForm, clause_ids: list[str]) -> Choice:
    """The form's decision with the clauses `clause_ids` re-read; a StoreError saying why it
    is refused (no reason, no clause where the desk wants one, a clause the wording lacks)."""
    if why := form_refusal(form.decision, form.reason):
        raise StoreError(why)
    return actions.choose(store, claim_id, form.decision, clause_ids)


def form_refusal(decision: str, reason: str) -> str | None:
    """What the store would refuse in the form itself: said before any clause is read."""
    if decision not in HUMAN_DECISIONS:
        return f"decision must be one of {', '.join(HUMAN_DECISIONS)}"
    return None if reason.strip() else "a reason is required"


def filled_in(form: DecisionForm, typed: str = "") -> dict[str, Any]:
    """The decide form as the reviewer filled it, to show it again with a refusal: the
    decision, the reason, the clause boxes ticked and the clause typed."""
    return {
        "decision": form.decision,
        "reason": form.reason,
        "clauses": form.clause,
        "other": typed,
    }


def refused(
    pages: Pages,
    request: Request,
    session: Session,
    claim_id: str,
    exc: ClaimsCrewError,
    filled: dict[str, Any] | None = None,
) -> Response:
    """The escalation's page again, saying why nothing was decided, with the form as `filled`
    (detail_page answers 404 where there is no such escalation)."""
    if isinstance(exc, AlreadyDecided):
        status, said = (
            409,
            f"Already decided ({exc.decision}) by {exc.decided_by} at {exc.decided_at}.",
        )
    elif isinstance(exc, StoreError):  # a clause, a reason or the reviewer's authority refused
        status, said = 400, str(exc)
    elif isinstance(exc, ConfigError):  # desk.yaml edited into a broken state meanwhile
        status, said = 500, f"Nothing was decided: the desk's rules could not be read. {exc}"
    else:  # the policy could not be read to re-read a clause
        status, said = 500, f"Nothing was decided: {exc}"
    return detail_page(pages, request, session, claim_id, status, said, filled=filled)


def detail_page(
    pages: Pages,
    request: Request,
    session: Session,
    claim_id: str,
    status_code: int = 200,
    error: str | None = None,
    *,
    filled: dict[str, Any] | None = None,
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
            # The clauses the decide form offers, where the form is shown.
            "offer": clause_offer(store, detail)
            if detail["state"] == "open" and not detail["proposal"]
            else None,
            "filled": filled or {"decision": "", "reason": "", "clauses": [], "other": ""},
        },
        status_code=status_code,
    )
