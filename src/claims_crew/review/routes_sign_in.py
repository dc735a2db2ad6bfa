"""Signing in and out: the sign-in form, the token check (throttled), and sign-out.

The sign-in form's CSRF token is tied to a cookie, since there is no session yet; sign-out's
to the session. Wrong tokens are throttled by the store (store/sign_ins.py).
"""

from __future__ import annotations

import math
import secrets

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from claims_crew.review.pages import (
    LOGIN_CSRF_COOKIE,
    SESSION_COOKIE,
    Pages,
    same_token,
    to_login,
    wrong_csrf,
)
from claims_crew.store import SignInThrottled


def sign_in_routes(pages: Pages) -> APIRouter:
    """GET and POST /login, POST /logout."""
    router = APIRouter()
    store = pages.store

    @router.get("/login")
    def login_form(request: Request) -> Response:
        csrf = secrets.token_urlsafe(32)
        # A new desk has nobody to sign in yet: the page says how to add the first reviewer.
        nobody = not store.has_reviewers()
        response = pages.render(
            request,
            "login.html",
            {"csrf": csrf, "error": None, "reviewer": None, "no_reviewer": nobody},
        )
        pages.set_cookie(request, response, LOGIN_CSRF_COOKIE, csrf)
        return response

    @router.post("/login")
    def login(request: Request, token: str = Form(""), csrf: str = Form("")) -> Response:
        expected = request.cookies.get(LOGIN_CSRF_COOKIE, "")
        if not expected or not same_token(csrf, expected):
            return wrong_csrf()
        client = request.client.host if request.client else "unknown"
        try:
            name = store.sign_in(token.strip(), client, pages.limits)
        except SignInThrottled as exc:
            return _throttled(pages, request, expected, exc)
        if name is None:
            return pages.render(
                request,
                "login.html",
                {"csrf": expected, "error": "That token is not valid.", "reviewer": None},
                status_code=401,
            )
        response = RedirectResponse("/", status_code=303)
        pages.set_cookie(request, response, SESSION_COOKIE, store.open_session(name))
        pages.delete_cookie(request, response, LOGIN_CSRF_COOKIE)
        return response

    @router.post("/logout")
    def logout(request: Request, csrf: str = Form("")) -> Response:
        session = pages.signed_in(request)
        if session is None:
            return to_login()
        if not same_token(csrf, session.csrf):
            return wrong_csrf()
        store.close_session(session.id)
        response = to_login()
        pages.delete_cookie(request, response, SESSION_COOKIE)
        return response

    return router


def _throttled(pages: Pages, request: Request, csrf: str, exc: SignInThrottled) -> Response:
    """The sign-in form again, answering 429 with how long to wait."""
    wait = max(1, math.ceil(exc.retry_after))
    refused = pages.render(
        request,
        "login.html",
        {
            "csrf": csrf,
            "error": f"Too many wrong tokens. Try again in {wait} s.",
            "reviewer": None,
        },
        status_code=429,
    )
    refused.headers["Retry-After"] = str(wait)
    return refused
