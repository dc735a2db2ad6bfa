"""What a request may send the review page, checked before its body is read.

Every request meets this before any route parses a form:
- a body over its route's cap is refused with 413: at once when its Content-Length says so,
  else as soon as the bytes streamed in pass the cap (a chunked body declares no length);
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

import re

from fastapi import HTTPException, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from claims_crew.api.app import API_PREFIX
from claims_crew.api.guard import closing_send, content_length
from claims_crew.claim_files import MAX_ATTACHMENTS_BYTES
from claims_crew.review.pages import Pages, sign_in_first, to_login

# A plain form (sign-in, a decision, a confirmation, a reassignment) carries a token, a few
# choices and a reason of a few sentences: 64 KiB is pages of text, and no more is ever needed.
FORM_BODY_BYTES = 64 << 10
# An appeal's files may together be what a claim's attachments may be (documents/limits.py),
# and no more, whatever the claim already holds; 1 MiB more is room for the reason, the
# token and the multipart framing around each file.
APPEAL_BODY_BYTES = MAX_ATTACHMENTS_BYTES + (1 << 20)

_APPEAL = re.compile(r"/escalations/[^/]+/appeal")
_READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})
_SIGN_IN = "/login"
# Signing out with no session left: back to the sign-in form, as before, not a bare 401.
_SIGNED_OUT = "/logout"


def _is_api(path: str) -> bool:
    """The HTTP API checks its own tokens and caps before it reads a body (api/guard.py)."""
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


def body_cap(method: str, path: str) -> int:
    """The most bytes a request's body may have: an appeal's upload, else a plain form's."""
    return APPEAL_BODY_BYTES if method == "POST" and _APPEAL.fullmatch(path) else FORM_BODY_BYTES


def needs_session(method: str, path: str) -> bool:
    """Whether a request must come from a live session before its body is read."""
    return method not in _READ_ONLY and path != _SIGN_IN


class BodyTooLarge(HTTPException):
    """A body that streamed past its cap, raised where the route reads it (answered 413)."""

    def __init__(self, cap: int) -> None:
        super().__init__(status_code=413, detail=too_large_text(cap))
        self.cap = cap


def too_large_text(cap: int) -> str:
    return f"Content too large: this form takes at most {cap:,} bytes"


def too_large(cap: int) -> Response:
    return PlainTextResponse(too_large_text(cap), status_code=413)


class BodyLimit:
    """The ASGI middleware that applies the rules above to every HTTP request."""

    def __init__(self, app: ASGIApp, pages: Pages) -> None:
        self.app = app
        self.pages = pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _is_api(scope["path"]):
            await self.app(scope, receive, send)
            return
        body = _CountedBody(scope, receive, body_cap(scope["method"], scope["path"]))
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

    async def _refusal(self, scope: Scope, body: _CountedBody) -> Response | None:
        """413 for a declared length over the cap, 401 for a body without a session."""
        if body.declared is not None and body.declared > body.cap:
            return too_large(body.cap)
        method, path = scope["method"], scope["path"]
        if not needs_session(method, path):
            return None
        # The store is synchronous: looked up in a worker thread, off the event loop.
        if await run_in_threadpool(self.pages.signed_in, Request(scope)) is not None:
            return None
        return to_login() if path == _SIGNED_OUT else sign_in_first()


class _CountedBody:
    """One request's body as the app reads it: counted against the cap as it streams in."""

    def __init__(self, scope: Scope, receive: Receive, cap: int) -> None:
        self._receive = receive
        self.cap = cap
        self.declared = content_length(scope)
        chunked = any(name == b"transfer-encoding" for name, _ in scope["headers"])
        self.complete = not chunked and not self.declared
        self.read = 0
        self.answered = False

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self.read += len(message.get("body", b""))
            if self.read > self.cap:
                raise BodyTooLarge(self.cap)
            self.complete = not message.get("more_body", False)
        return message

    def send_to(self, send: Send) -> Send:
        """`send`, closing the connection after a response given before the body was read."""

        def started(_status: int) -> None:
            self.answered = True

        return closing_send(send, lambda: self.complete, started)
