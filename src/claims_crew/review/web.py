"""The review page: the escalation queue and the side-by-side view, server-rendered.

Safety, in the order a request meets it:
- a Host header that is not one of ours is refused (403), so a page on another site cannot
  reach this server by DNS rebinding (the authority of an absolute-form target,
  `GET http://host/path`, is the request's host: request_target.py); only the probes
  /healthz and /readyz (api/ops.py) answer any Host, as load balancers call them by address,
  and they tell nothing but up and ready;
- a body is capped before it is read, and one sent without a session is refused before it is
  read, sign-in excepted (body_limits.py): 413 over the cap, 401 without a session;
- pages need a session: a reviewer signs in with the token `claims-crew reviewers add` printed,
  and gets a random session id in an HttpOnly, SameSite=Strict cookie (kept hashed in the store),
  marked Secure when the page is served over HTTPS: `secure_cookies` (`serve --https`), or a
  request whose scheme is https (behind a trusted proxy, from its X-Forwarded-Proto);
- wrong tokens are throttled per client address and overall (store/sign_ins.py): past a few,
  sign-in answers 429 with Retry-After until a growing wait is over;
- every form carries a CSRF token tied to the session (or, on the sign-in form, to a cookie),
  and a POST without the right one is refused (403);
- templates autoescape everything, and the Content-Security-Policy allows no script at all;
  every response carries the security headers, the 403 for a foreign Host included;
- a request whose parameters do not fit (a page number out of range, a version that is no
  number) is a 400 naming the parameter, and an error in a page is a plain 500: both are
  ordinary responses, with the headers, and the connection stays open for the next request.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse, Response
from starlette.exceptions import HTTPException

from claims_crew.api.app import API_PREFIX, ApiSettings, create_api, under_api
from claims_crew.api.body_limit import BodyTooLarge
from claims_crew.api.ops import PROBE_PATHS, ops_routes
from claims_crew.api.problems import http_problem, problem_response
from claims_crew.review.body_limits import BodyLimit, too_large
from claims_crew.review.pages import (
    LOGIN_CSRF_COOKIE,
    SESSION_COOKIE,
    Appealer,
    Pages,
    load_templates,
    template_folder,
)
from claims_crew.review.request_target import request_host, request_path
from claims_crew.review.routes_appeal import appeal_routes
from claims_crew.review.routes_decision_check import decision_check_routes
from claims_crew.review.routes_desk import desk_routes
from claims_crew.review.routes_escalation import escalation_routes
from claims_crew.review.routes_page_image import page_image_routes
from claims_crew.review.routes_queue import queue_routes
from claims_crew.review.routes_readings import readings_routes
from claims_crew.review.routes_sign_in import sign_in_routes
from claims_crew.run.stale import Project
from claims_crew.store import SignInLimits, Store

__all__ = [
    "LOGIN_CSRF_COOKIE",
    "SECURITY_HEADERS",
    "SESSION_COOKIE",
    "create_app",
    "default_hosts",
]

_log = logging.getLogger(__name__)

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


def create_app(
    store: Store,
    allowed_hosts: Iterable[str],
    sign_in_limits: SignInLimits | None = None,
    project: Callable[[], Project] | None = None,
    secure_cookies: bool = False,
    appeal: Appealer | None = None,
    api: ApiSettings | None = None,
) -> FastAPI:
    """The review app over one store; only requests whose Host is in `allowed_hosts` pass.
    With `project` (the project as it is at each request), stale decisions are marked. With
    `secure_cookies`, every cookie is Secure (the page is reached over HTTPS only). With
    `appeal`, a decided claim's page has a form that reopens it with new evidence. With `api`,
    the HTTP API for claims systems is served under /api/v1 (api/app.py): it checks its own
    tokens and caps, so BodyLimit lets it through."""
    pages = Pages(
        store=store,
        templates=load_templates(),
        limits=sign_in_limits or SignInLimits(),
        project=project,
        secure_cookies=secure_cookies,
        appeal=appeal,
    )
    css = (template_folder() / "review.css").read_text(encoding="utf-8")
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.add_exception_handler(RequestValidationError, _bad_request)
    app.add_exception_handler(HTTPException, _not_served)
    app.add_exception_handler(BodyTooLarge, _too_large)
    # Added before the Host guard, so it runs inside it: a foreign Host is refused first, and
    # its refusals carry the security headers too.
    app.add_middleware(BodyLimit, pages=pages)
    _guard_hosts(app, {h.lower() for h in allowed_hosts})

    @app.get("/review.css")
    def stylesheet() -> Response:
        return PlainTextResponse(css, media_type="text/css")

    app.include_router(sign_in_routes(pages))
    app.include_router(queue_routes(pages))
    app.include_router(escalation_routes(pages))
    app.include_router(decision_check_routes(pages))
    app.include_router(appeal_routes(pages))
    # Last of the POSTs under /escalations/{id}/: its {action} would answer /decide, /check
    # and /appeal with "Not found" if it came before their own routes.
    app.include_router(desk_routes(pages))
    app.include_router(page_image_routes(pages))
    app.include_router(readings_routes(pages))
    # /healthz, /readyz, /metrics: GETs, so BodyLimit asks them for no session.
    app.include_router(ops_routes(store))
    if api is not None:
        app.mount(API_PREFIX, create_api(store, api))
    return app


async def _bad_request(_request: Request, exc: Exception) -> Response:
    """400, naming each parameter that does not fit and why (never echoing what was sent)."""
    assert isinstance(exc, RequestValidationError)
    problems = "; ".join(
        f"{err['loc'][-1]}: {err['msg']}" for err in exc.errors() if err.get("loc")
    )
    return PlainTextResponse(f"Bad request: {problems}", status_code=400)


async def _not_served(request: Request, exc: Exception) -> Response:
    """A path under /api that the API's mount does not reach (/api/v2/..., /api) is answered
    as the API answers, with a problem; the page's own paths as FastAPI answers them."""
    assert isinstance(exc, HTTPException)
    if under_api(request.url.path):
        return await http_problem(request, exc)
    return await http_exception_handler(request, exc)


async def _too_large(_request: Request, exc: Exception) -> Response:
    """413, as plain text like every other refusal of the page."""
    assert isinstance(exc, BodyTooLarge)
    return too_large(exc.cap)


def _guard_hosts(app: FastAPI, hosts: set[str]) -> None:
    """Refuse a foreign Host header (403), and put the security headers on every response,
    a 500 for an error in a page included."""

    @app.middleware("http")
    async def guard(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        foreign = request_host(request.scope) not in hosts
        path = request_path(request.scope)
        if foreign and path not in PROBE_PATHS:
            response = _foreign_host(path)
        else:
            try:
                response = await call_next(request)
            except Exception:  # answered here, so it too has the headers and the connection
                _log.exception("the review page failed on %s", request.url.path)
                response = PlainTextResponse("Internal error", status_code=500)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response


def _foreign_host(path: str) -> Response:
    """403 for a Host not ours: a problem on the API's paths, plain text on the page's. Its body
    is never read: closing the connection keeps uvicorn from reading and discarding the rest
    of an upload sent to a foreign Host."""
    closing = {"Connection": "close"}
    if under_api(path):
        return problem_response(403, "forbidden", "unknown Host header", path, closing)
    return PlainTextResponse("Forbidden: unknown Host header", status_code=403, headers=closing)
