"""The one limit on how much a request may send, for the HTTP API and the review page alike.

Each side declares its caps here, route by route, as data (`BodyCaps`): the API's guard
(guard.py) and the page's middleware (review/body_limits.py) look a request's cap up in their
own table, count its body with `CountedBody`, and meet `BodyTooLarge` when it streams past the
cap. A body over its cap is refused:
- at once when its Content-Length says so (`CountedBody.declared_over`);
- else as soon as the bytes streamed in pass the cap (a chunked body declares no length).
A refusal given before the whole body was read closes the connection, so the server never
reads the rest of an upload it already refused only to throw it away before the next request.

What each side answers is its own: the API a problem (`payload_too_large`), the page plain text;
both with 413 and the cap. The error carries the API's words in its detail, as an HTTPException,
so FastAPI passes it through unchanged even from where a route reads a form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starlette.exceptions import HTTPException
from starlette.types import Message, Receive, Scope, Send

from claims_crew.claim_files import MAX_ATTACHMENTS_BYTES, MAX_CLAIM_BYTES

# Room for the multipart framing around each part, and a few form fields (a reason, a token).
FRAMING_BYTES = 1 << 20
# A claim's upload: the claim file and its attachments at their caps (claim_files.py).
CLAIM_BODY_BYTES = MAX_CLAIM_BYTES + MAX_ATTACHMENTS_BYTES + FRAMING_BYTES
# Documents arriving later: what a claim's attachments may be.
DOCUMENTS_BODY_BYTES = MAX_ATTACHMENTS_BYTES + FRAMING_BYTES
# Anything else the API is sent carries no body worth the name.
OTHER_BODY_BYTES = 64 << 10
# A plain form of the page (sign-in, a decision, a confirmation, a reassignment) carries a
# token, a few choices and a reason of a few sentences: 64 KiB is pages of text.
FORM_BODY_BYTES = 64 << 10
# An appeal's files may together be what a claim's attachments may be (documents/limits.py),
# and no more, whatever the claim already holds.
APPEAL_BODY_BYTES = MAX_ATTACHMENTS_BYTES + FRAMING_BYTES


@dataclass(frozen=True, slots=True)
class RouteCap:
    """The cap of the requests of one method whose path matches `path` whole."""

    method: str
    path: re.Pattern[str]
    cap: int


@dataclass(frozen=True, slots=True)
class BodyCaps:
    """One side's caps: each route's own, else `otherwise`. Called with a request's method and
    path (inside the side's mount), it gives that request's cap."""

    routes: tuple[RouteCap, ...]
    otherwise: int

    def __call__(self, method: str, path: str) -> int:
        return next(
            (r.cap for r in self.routes if r.method == method and r.path.fullmatch(path)),
            self.otherwise,
        )


API_BODY_CAPS = BodyCaps(
    (
        RouteCap("POST", re.compile(r"/claims"), CLAIM_BODY_BYTES),
        RouteCap("POST", re.compile(r"/claims/[^/]+/documents"), DOCUMENTS_BODY_BYTES),
    ),
    otherwise=OTHER_BODY_BYTES,
)
PAGE_BODY_CAPS = BodyCaps(
    (RouteCap("POST", re.compile(r"/escalations/[^/]+/appeal"), APPEAL_BODY_BYTES),),
    otherwise=FORM_BODY_BYTES,
)


class BodyTooLarge(HTTPException):
    """A body over its cap, raised where it is read: each side answers it 413 in its words."""

    def __init__(self, cap: int) -> None:
        super().__init__(413, f"this request's body may be at most {cap:,} bytes")
        self.cap = cap


class CountedBody:
    """One request's body as the app reads it: counted against the cap as it streams in, and
    the status of the answer it got, once one is started."""

    def __init__(self, scope: Scope, receive: Receive, cap: int) -> None:
        self._receive = receive
        self.cap = cap
        self.declared = _content_length(scope)
        chunked = any(name == b"transfer-encoding" for name, _ in scope["headers"])
        # Complete: nothing of the body is left unread (a request that sends none).
        self.complete = not chunked and not self.declared
        self.read = 0
        self.status: int | None = None

    @property
    def declared_over(self) -> bool:
        """Whether its Content-Length alone is over the cap."""
        return self.declared is not None and self.declared > self.cap

    @property
    def answered(self) -> bool:
        return self.status is not None

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self.read += len(message.get("body", b""))
            if self.read > self.cap:
                raise BodyTooLarge(self.cap)
            self.complete = not message.get("more_body", False)
        return message

    def send_to(self, send: Send) -> Send:
        """`send`, noting the answer's status, and adding `Connection: close` to an answer
        started while part of the body is still unread."""

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.status = int(message["status"])
                if not self.complete:
                    headers = list(message.get("headers", []))
                    headers.append((b"connection", b"close"))
                    message = {**message, "headers": headers}
            await send(message)

        return sending


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
