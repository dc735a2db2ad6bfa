"""Who may call the API, how often, and how much they may send: checked before a body is read.

Every request to /api/v1 (its OpenAPI document excepted) meets, in order:
1. its token (`Authorization: Bearer cc_...`): none, or one the store does not know or has
   revoked, is 401 with `WWW-Authenticate: Bearer`;
2. the client's rate limit (`take_call`: the model calls' shared rate limit, in a store row of
   the client's own, so every serving process counts the same calls): past
   CLAIMS_CREW_API_CALLS_PER_MINUTE it is 429 with Retry-After;
3. the scope its method needs: `read` for GET and HEAD, `submit` for anything that sends: 403;
4. its route's body cap: 413 at once when Content-Length says more, else as soon as the bytes
   streamed in pass it (a chunked body declares no length).
A refusal given before the body was read closes the connection, so the server never reads the
rest of an upload it already refused. Every call past the token and the rate limit is an audit
entry naming the client, its call (method and route) and the status it was answered with.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from claims_crew.api.problems import ApiProblem, internal_error, log_failure, problem_response
from claims_crew.claim_files import MAX_ATTACHMENTS_BYTES, MAX_CLAIM_BYTES
from claims_crew.llms.rate_limit import take_rate
from claims_crew.store import ApiClient, Store

# Room for the multipart framing around each part, and a few form fields.
FRAMING_BYTES = 1 << 20
# A claim's upload: the claim file and its attachments at their caps (claim_files.py).
CLAIM_BODY_BYTES = MAX_CLAIM_BYTES + MAX_ATTACHMENTS_BYTES + FRAMING_BYTES
# Documents arriving later (or an appeal's evidence): what a claim's attachments may be.
DOCUMENTS_BODY_BYTES = MAX_ATTACHMENTS_BYTES + FRAMING_BYTES
# Anything else sends no body worth the name.
OTHER_BODY_BYTES = 64 << 10

_DOCUMENTS = re.compile(r"/claims/[^/]+/documents")
_READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})
# The API's description is public: a client reads it before it has a token.
OPEN_PATHS = frozenset({"/openapi.json"})


def body_cap(method: str, path: str) -> int:
    """The most bytes a request's body may have, by its route (`path` inside /api/v1)."""
    if method == "POST" and path == "/claims":
        return CLAIM_BODY_BYTES
    if method == "POST" and _DOCUMENTS.fullmatch(path):
        return DOCUMENTS_BODY_BYTES
    return OTHER_BODY_BYTES


# A client's limit counts its calls of the last minute.
CALL_WINDOW_S = 60.0


def take_call(store: Store, client: str, per_minute: int) -> float:
    """0.0: the client's call is let through, and counted; else the seconds until its next
    one is, with nothing counted (so a client that keeps knocking does not push its wait
    further). The rule is the model calls' own (llms/rate_limit.take_rate), on a row of the
    client's, changed as locked, by the database's clock on PostgreSQL."""
    return take_rate(store, f"api-client:{client}", per_minute, CALL_WINDOW_S)


def scope_needed(method: str) -> str:
    return "read" if method in _READ_ONLY else "submit"


class PayloadTooLarge(ApiProblem):
    def __init__(self, cap: int) -> None:
        super().__init__(
            413,
            "payload_too_large",
            f"this request's body may be at most {cap:,} bytes",
        )


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if kind.lower() == "bearer" else None
    return None


@dataclass
class _Call:
    """One request as the guard follows it: its body counted, its answer's status seen."""

    cap: int
    declared: int | None
    complete: bool
    read: int = 0
    status: int | None = None


class Guard:
    """The ASGI middleware that applies the rules above to every HTTP request of the API."""

    def __init__(
        self, app: ASGIApp, store: Store, per_minute: int, templates: Sequence[str]
    ) -> None:
        self.app = app
        self.store = store
        self.per_minute = per_minute
        # Each route's path template (`/claims/{claim_id}`), to name a call in the audit trail
        # even when it is refused before it reaches its route.
        self.templates = [(compile_path(path)[0], path) for path in templates]

    def _template(self, path: str) -> str | None:
        return next((named for regex, named in self.templates if regex.match(path)), None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        root = scope.get("root_path", "")
        path = scope["path"].removeprefix(root) or "/"
        if path in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        declared = content_length(scope)
        chunked = any(name == b"transfer-encoding" for name, _ in scope["headers"])
        call = _Call(body_cap(method, path), declared, not chunked and not declared)
        sending = _send_for(call, send)
        instance = scope["path"]
        token = bearer_token(scope)
        client = (
            None if token is None else await run_in_threadpool(self.store.client_for_token, token)
        )
        if client is None:
            said = "no token was given" if token is None else "the token is unknown or revoked"
            challenge = 'Bearer realm="claims-crew"'
            if token is not None:
                challenge += ', error="invalid_token"'
            refusal = problem_response(
                401,
                "unauthorized",
                f"{said}: send Authorization: Bearer <token>",
                instance,
                {"WWW-Authenticate": challenge},
            )
            await refusal(scope, receive, sending)
            return
        wait = await run_in_threadpool(take_call, self.store, client.name, self.per_minute)
        if wait > 0:
            refusal = problem_response(
                429,
                "rate_limited",
                f"over {self.per_minute} calls a minute; try again in {math.ceil(wait)} s",
                instance,
                {"Retry-After": str(math.ceil(wait))},
            )
            await refusal(scope, receive, sending)
            return
        scope.setdefault("state", {})["client"] = client.name
        try:
            await self._checked(scope, receive, sending, client, call, instance)
        finally:
            await run_in_threadpool(self._record, scope, client, call, root)

    async def _checked(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        client: ApiClient,
        call: _Call,
        instance: str,
    ) -> None:
        method = scope["method"]
        needed = scope_needed(method)
        if needed not in client.scopes:
            refusal = problem_response(
                403,
                "forbidden",
                f"{method} needs the {needed} scope; this client has "
                f"{', '.join(sorted(client.scopes))}",
                instance,
            )
            await refusal(scope, receive, send)
            return
        if call.declared is not None and call.declared > call.cap:
            await _answer(PayloadTooLarge(call.cap), scope, receive, send, instance)
            return

        async def counted() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                call.read += len(message.get("body", b""))
                if call.read > call.cap:
                    raise PayloadTooLarge(call.cap)
                call.complete = not message.get("more_body", False)
            return message

        try:
            await self.app(scope, counted, send)
        except ApiProblem as exc:  # raised where no route was there to answer it
            if call.status is not None:
                raise
            await _answer(exc, scope, receive, send, instance)
        except Exception:
            log_failure(instance)
            if call.status is not None:
                raise
            await internal_error(instance)(scope, receive, send)

    def _record(self, scope: Scope, client: ApiClient, call: _Call, root: str) -> None:
        """The call's audit entry: its method, route and status, and the claim it was about."""
        if call.status is None:
            return
        template = self._template(scope["path"].removeprefix(root))
        named = f"{root}{template}" if template else "(no such route)"
        state = scope.get("state", {})
        self.store.record_call(
            client.name,
            f"{scope['method']} {named}",
            call.status,
            str(state.get("claim_id", "")),
            str(state.get("claim_sha256", "")),
        )


async def _answer(
    exc: ApiProblem, scope: Scope, receive: Receive, send: Send, instance: str
) -> None:
    response = problem_response(exc.status_code, exc.code, str(exc.detail), instance, exc.headers)
    await response(scope, receive, send)


def _send_for(call: _Call, send: Send) -> Send:
    def started(status: int) -> None:
        call.status = status

    return closing_send(send, lambda: call.complete, started)


def closing_send(send: Send, complete: Callable[[], bool], started: Callable[[int], None]) -> Send:
    """`send`, telling `started` the status, and closing the connection after an answer given
    before the whole body was read (`complete`), so the server never reads the rest of an
    upload only to throw it away before the next request."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            started(int(message["status"]))
            if not complete():
                headers = list(message.get("headers", []))
                headers.append((b"connection", b"close"))
                message = {**message, "headers": headers}
        await send(message)

    return sending


def content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
