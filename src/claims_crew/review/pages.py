"""What every route of the review page shares: the store, the templates, sessions and cookies.

One `Pages` is built per app (web.create_app); the route modules (routes_sign_in,
routes_queue, routes_escalation) take it and register their handlers on an APIRouter.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from claims_crew.run.stale import Project, find_stale
from claims_crew.store import SignInLimits, Store

SESSION_COOKIE = "claims_crew_session"
LOGIN_CSRF_COOKIE = "claims_crew_login_csrf"


def template_folder() -> Path:
    return Path(str(resources.files("claims_crew.review") / "templates"))


def load_templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_folder()),
        autoescape=True,  # everything, whatever the file name: claims and models are untrusted
        undefined=jinja2.StrictUndefined,
    )
    env.filters["pct"] = lambda v: "-" if v is None else f"{v:.2f}"
    return Jinja2Templates(env=env)


def to_login() -> Response:
    return RedirectResponse("/login", status_code=303)


def wrong_csrf() -> Response:
    return PlainTextResponse("Forbidden: missing or wrong CSRF token", status_code=403)


def sign_in_first() -> Response:
    return PlainTextResponse("Sign in first", status_code=401)


def same_token(given: str, expected: str) -> bool:
    """Whether a posted token is the expected one, compared in constant time. Compared as UTF-8
    bytes: compare_digest refuses a str with anything but ASCII (TypeError), and a token is
    whatever a form sends."""
    return secrets.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


@dataclass(frozen=True)
class Session:
    """A live session: its id, the reviewer signed in, and the CSRF token its forms carry."""

    id: str
    reviewer: str
    csrf: str


# An appeal as the page runs it: (claim id, the uploaded files, reason) → why it was not
# decided, or None (run/appeal.py).
Appealer = Callable[[str, list[Path], str], str | None]


@dataclass(frozen=True)
class Pages:
    """The review app's state, handed to each route module."""

    store: Store
    templates: Jinja2Templates
    limits: SignInLimits
    project: Callable[[], Project] | None
    secure_cookies: bool
    # Runs an appeal (claim id, the new files, reason); None: the page takes no appeals.
    appeal: Appealer | None = None

    def signed_in(self, request: Request) -> Session | None:
        """The session a live session cookie names, else None."""
        session_id = request.cookies.get(SESSION_COOKIE, "")
        session = self.store.session(session_id) if session_id else None
        return Session(session_id, session.reviewer, session.csrf) if session else None

    def posted(self, request: Request, csrf: str) -> Session | Response:
        """The session a form was posted in, or the answer refusing it: 401 without one, 403
        when the form's CSRF token is not the session's."""
        session = self.signed_in(request)
        if session is None:
            return sign_in_first()
        if not same_token(csrf, session.csrf):
            return wrong_csrf()
        return session

    def render(
        self, request: Request, name: str, context: dict[str, Any], status_code: int = 200
    ) -> Response:
        return self.templates.TemplateResponse(request, name, context, status_code=status_code)

    def set_cookie(self, request: Request, response: Response, name: str, value: str) -> None:
        response.set_cookie(name, value, **self._cookie_flags(request))

    def delete_cookie(self, request: Request, response: Response, name: str) -> None:
        response.delete_cookie(name, **self._cookie_flags(request))

    def _cookie_flags(self, request: Request) -> dict[str, Any]:
        # A browser sends a Secure cookie over HTTPS only, so it never crosses the network in
        # clear text even if the page is once reached over plain HTTP.
        secure = self.secure_cookies or request.url.scheme == "https"
        return {"httponly": True, "samesite": "strict", "secure": secure}

    def stale_now(self, claim_id: str | None = None) -> list[dict[str, Any]]:
        """The stale decisions (of one claim), each with a line per reason; none unmarked."""
        if self.project is None:
            return []
        store = self.store
        found = find_stale(store, self.project(), store.clock(), [claim_id] if claim_id else None)
        return [s.as_json() for s in found]
