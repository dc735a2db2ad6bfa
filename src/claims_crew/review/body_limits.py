"""What a request may send the review page, checked before its body is read.

Every request meets this before any route parses a form:
- a body over its route's cap (PAGE_BODY_CAPS, in api/body_limit.py, the limit the API's
  uploads meet too) is refused with 413: at once when its Content-Length says so, else as soon
  as the bytes streamed in pass the cap (a chunked body declares no length);
- the HTTP API under /api/v1 passes untouched: it checks its own tokens and caps (api/guard.py);
- a request that may carry a body (anything but GET, HEAD and OPTIONS), sign-in excepted, needs
  a live session: without one it is refused (401) before a byte of its body is read. Sign-in
  has no session yet; its form is small and its wrong tokens are throttled (store/sign_ins.py);
- a refusal given before the body was read closes the connection, so the server never reads
  the rest of that body only to throw it away before the next request.

The CSRF token travels in the form, so it is checked once the (capped) form is read, by the
route (Pages.posted). A forged cross-site form never gets that far: the session cookie is
SameSite=Strict, so a browser sends it only with the page's own forms.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from claims_crew.api.app import API_PREFIX
from claims_crew.api.body_limit import PAGE_BODY_CAPS, BodyTooLarge, CountedBody
from claims_crew.review.pages import Pages, sign_in_first, to_login

_READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})
_SIGN_IN = "/login"
# Signing out with no session left: back to the sign-in form, as before, not a bare 401.
_SIGNED_OUT = "/logout"


def _is_api(path: str) -> bool:
    """The HTTP API checks its own tokens and caps before it reads a body (api/guard.py)."""
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


def needs_session(method: str, path: str) -> bool:
    """Whether a request must come from a live session before its body is read."""
    return method not in _READ_ONLY and path != _SIGN_IN


def too_large(cap: int) -> Response:
    """The page's words for a body over its cap (BodyTooLarge), plain text as every refusal."""
    return PlainTextResponse(f"Content too large: this form takes at most {cap:,} bytes", 413)


class BodyLimit:
    """The ASGI middleware that applies the rules above to every HTTP request."""

    def __init__(self, app: ASGIApp, pages: Pages) -> None:
        self.app = app
        self.pages = pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _is_api(scope["path"]):
            await self.app(scope, receive, send)
            return
        body = CountedBody(scope, receive, PAGE_BODY_CAPS(scope["method"], scope["path"]))
        refusal = await self._refusal(scope, body)
        if refusal is not None:
            await refusal(scope, body.receive, body.send_to(send))
            return
        sent = body.send_to(send)
        try:
            await self.app(scope, body.receive, sent)
        except BodyTooLarge:  # answered here only where no route was there to answer it
            if body.answered:
                raise
            await too_large(body.cap)(scope, body.receive, sent)

    async def _refusal(self, scope: Scope, body: CountedBody) -> Response | None:
        """413 for a declared length over the cap, 401 for a body without a session."""
        if body.declared_over:
            return too_large(body.cap)
        method, path = scope["method"], scope["path"]
        if not needs_session(method, path):
            return None
        # The store is synchronous: looked up in a worker thread, off the event loop.
        if await run_in_threadpool(self.pages.signed_in, Request(scope)) is not None:
            return None
        return to_login() if path == _SIGNED_OUT else sign_in_first()
