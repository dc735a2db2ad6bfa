"""The review page: the escalation queue and the side-by-side view, server-rendered.

Safety, in the order a request meets it:
- a Host header that is not one of ours is refused (403), so a page on another site cannot
  reach this server by DNS rebinding;
- pages need a session: a reviewer signs in with the token `claims-crew reviewer add` printed,
  and gets a random session id in an HttpOnly, SameSite=Strict cookie (kept hashed in the store),
  marked Secure when the page is served over HTTPS: `secure_cookies` (`serve --https`), or a
  request whose scheme is https (behind a trusted proxy, from its X-Forwarded-Proto);
- wrong tokens are throttled per client address and overall (store/sign_ins.py): past a few,
  sign-in answers 429 with Retry-After until a growing wait is over;
- every form carries a CSRF token tied to the session (or, on the sign-in form, to a cookie),
  and a POST without the right one is refused (403);
- templates autoescape everything, and the Content-Security-Policy allows no script at all;
  every response carries the security headers, the 403 for a foreign Host included.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Awaitable, Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from fastapi import FastAPI, Form, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from claims_crew.revalidation.stale import Project, find_stale
from claims_crew.review.views import age, escalation_detail, escalation_list
from claims_crew.store import (
    AlreadyDecided,
    NotFound,
    SignInLimits,
    SignInThrottled,
    Store,
    StoreError,
)
from claims_crew.vocabulary import HUMAN_DECISIONS, parse_stamp

SESSION_COOKIE = "claims_crew_session"
LOGIN_CSRF_COOKIE = "claims_crew_login_csrf"

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def default_hosts(host: str, port: int) -> list[str]:
    """Host headers a browser sends for this address (with and without the port)."""
    names = {host, "127.0.0.1", "localhost"} if host in ("127.0.0.1", "localhost") else {host}
    return [f"{name}:{port}" for name in sorted(names)] + sorted(names)


def _templates() -> Jinja2Templates:
    folder = Path(str(resources.files("claims_crew.review") / "templates"))
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        autoescape=True,  # everything, whatever the file name: claims and models are untrusted
        undefined=jinja2.StrictUndefined,
    )
    env.filters["pct"] = lambda v: "-" if v is None else f"{v:.2f}"
    return Jinja2Templates(env=env)


def create_app(
    store: Store,
    allowed_hosts: Iterable[str],
    sign_in_limits: SignInLimits | None = None,
    project: Callable[[], Project] | None = None,
    secure_cookies: bool = False,
) -> FastAPI:
    """The review app over one store; only requests whose Host is in `allowed_hosts` pass.
    With `project` (the project as it is at each request), stale decisions are marked. With
    `secure_cookies`, every cookie is Secure (the page is reached over HTTPS only)."""
    limits = sign_in_limits or SignInLimits()
    hosts = {h.lower() for h in allowed_hosts}
    templates = _templates()
    css = (Path(str(resources.files("claims_crew.review") / "templates")) / "review.css").read_text(
        encoding="utf-8"
    )
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.middleware("http")
    async def guard(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if request.headers.get("host", "").lower() not in hosts:
            response: Response = PlainTextResponse(
                "Forbidden: unknown Host header", status_code=403
            )
        else:
            response = await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    def signed_in(request: Request) -> tuple[str, str, str] | None:
        """(session id, reviewer, csrf token) for a live session cookie."""
        session_id = request.cookies.get(SESSION_COOKIE, "")
        session = store.session(session_id) if session_id else None
        return (session_id, session.reviewer, session.csrf) if session else None

    def render(
        request: Request, name: str, context: dict[str, Any], status_code: int = 200
    ) -> Response:
        return templates.TemplateResponse(request, name, context, status_code=status_code)

    def to_login() -> Response:
        return RedirectResponse("/login", status_code=303)

    def set_cookie(request: Request, response: Response, name: str, value: str) -> None:
        response.set_cookie(name, value, **cookie_flags(request))

    def delete_cookie(request: Request, response: Response, name: str) -> None:
        response.delete_cookie(name, **cookie_flags(request))

    def cookie_flags(request: Request) -> dict[str, Any]:
        # A browser sends a Secure cookie over HTTPS only, so it never crosses the network in
        # clear text even if the page is once reached over plain HTTP.
        secure = secure_cookies or request.url.scheme == "https"
        return {"httponly": True, "samesite": "strict", "secure": secure}

    @app.get("/review.css")
    def stylesheet() -> Response:
        return PlainTextResponse(css, media_type="text/css")

    @app.get("/login")
    def login_form(request: Request) -> Response:
        csrf = secrets.token_urlsafe(32)
        response = render(request, "login.html", {"csrf": csrf, "error": None, "reviewer": None})
        set_cookie(request, response, LOGIN_CSRF_COOKIE, csrf)
        return response

    @app.post("/login")
    def login(request: Request, token: str = Form(""), csrf: str = Form("")) -> Response:
        expected = request.cookies.get(LOGIN_CSRF_COOKIE, "")
        if not expected or not secrets.compare_digest(csrf, expected):
            return PlainTextResponse("Forbidden: missing or wrong CSRF token", status_code=403)
        client = request.client.host if request.client else "unknown"
        try:
            name = store.sign_in(token.strip(), client, limits)
        except SignInThrottled as exc:
            wait = max(1, math.ceil(exc.retry_after))
            refused = render(
                request,
                "login.html",
                {
                    "csrf": expected,
                    "error": f"Too many wrong tokens. Try again in {wait} s.",
                    "reviewer": None,
                },
                status_code=429,
            )
            refused.headers["Retry-After"] = str(wait)
            return refused
        if name is None:
            return render(
                request,
                "login.html",
                {"csrf": expected, "error": "That token is not valid.", "reviewer": None},
                status_code=401,
            )
        response = RedirectResponse("/", status_code=303)
        set_cookie(request, response, SESSION_COOKIE, store.open_session(name))
        delete_cookie(request, response, LOGIN_CSRF_COOKIE)
        return response

    @app.post("/logout")
    def logout(request: Request, csrf: str = Form("")) -> Response:
        session = signed_in(request)
        if session is None:
            return to_login()
        if not secrets.compare_digest(csrf, session[2]):
            return PlainTextResponse("Forbidden: missing or wrong CSRF token", status_code=403)
        store.close_session(session[0])
        response = to_login()
        delete_cookie(request, response, SESSION_COOKIE)
        return response

    @app.get("/")
    def queue(request: Request, page: int = 1) -> Response:
        session = signed_in(request)
        if session is None:
            return to_login()
        listing = escalation_list(store, page)
        now = store.clock()
        stale = stale_now()
        by_claim = {s["claim_id"]: s for s in stale}
        for row in listing["escalations"]:
            row["age"] = age(row["opened_at"], now)
            row["stale"] = by_claim.get(row["claim_id"])
        return render(
            request,
            "queue.html",
            {"listing": listing, "stale": stale, "reviewer": session[1], "csrf": session[2]},
        )

    def stale_now(claim_id: str | None = None) -> list[dict[str, Any]]:
        """The stale decisions (of one claim), each with a line per reason; none unmarked."""
        if project is None:
            return []
        found = find_stale(store, project(), store.clock(), [claim_id] if claim_id else None)
        return [s.as_json() for s in found]

    def detail_page(
        request: Request,
        session: tuple[str, str, str],
        claim_id: str,
        status_code: int = 200,
        error: str | None = None,
    ) -> Response:
        try:
            detail = escalation_detail(store, claim_id)
        except NotFound:
            return PlainTextResponse("No such escalation", status_code=404)
        opened = parse_stamp(detail["opened_at"])
        detail["age"] = age(detail["opened_at"], max(store.clock(), opened))
        return render(
            request,
            "escalation.html",
            {
                "d": detail,
                "reviewer": session[1],
                "csrf": session[2],
                "decisions": HUMAN_DECISIONS,
                "error": error,
                "stale": next(iter(stale_now(detail["claim_id"])), None),
            },
            status_code=status_code,
        )

    @app.get("/escalations/{claim_id}")
    def show(request: Request, claim_id: str) -> Response:
        session = signed_in(request)
        if session is None:
            return to_login()
        return detail_page(request, session, claim_id)

    @app.post("/escalations/{claim_id}/decide")
    def decide(
        request: Request,
        claim_id: str,
        decision: str = Form(""),
        reason: str = Form(""),
        version: int = Form(0),
        csrf: str = Form(""),
    ) -> Response:
        session = signed_in(request)
        if session is None:
            return PlainTextResponse("Sign in first", status_code=401)
        if not secrets.compare_digest(csrf, session[2]):
            return PlainTextResponse("Forbidden: missing or wrong CSRF token", status_code=403)
        try:
            store.decide(claim_id, decision, reason, session[1], expected_version=version)
        except AlreadyDecided as exc:
            return detail_page(
                request,
                session,
                claim_id,
                409,
                f"Already decided ({exc.decision}) by {exc.decided_by} at {exc.decided_at}.",
            )
        except NotFound:
            return PlainTextResponse("No such escalation", status_code=404)
        except StoreError as exc:
            return detail_page(request, session, claim_id, 400, str(exc))
        return RedirectResponse(f"/escalations/{claim_id}", status_code=303)

    return app
