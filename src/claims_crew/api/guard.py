"""Who may call the API, how often, and how much they may send: checked before a body is read.

Every request to /api/v1 (its OpenAPI document excepted) meets, in order:
1. its token (`Authorization: Bearer cc_...`): none, or one the store does not know or has
   revoked, is 401 with `WWW-Authenticate: Bearer`;
2. the client's rate limit (`take_call`: the model calls' shared rate limit, in a store row of
   the client's own, so every serving process counts the same calls): past
   CLAIMS_CREW_API_CALLS_PER_MINUTE it is 429 with Retry-After;
3. the scope its method needs: `read` for GET and HEAD, `submit` for anything that sends: 403;
4. its route's body cap (API_BODY_CAPS, in body_limit.py, the limit the review page's forms
   meet too): 413 at once when Content-Length says more, else as soon as the bytes streamed in
   pass it (a chunked body declares no length).
A refusal given before the body was read closes the connection, so the server never reads the
rest of an upload it already refused. Every call past the token and the rate limit is an audit
entry naming the client, its call (method and route) and the status it was answered with.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from starlette.concurrency import run_in_threadpool
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from claims_crew.api.body_limit import API_BODY_CAPS, BodyTooLarge, CountedBody
from claims_crew.api.problems import ApiProblem, internal_error, log_failure, problem_response
from claims_crew.llms.rate_limit import take_rate
from claims_crew.store import ApiClient, Store

_READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})
# The API's description is public: a client reads it before it has a token.
OPEN_PATHS = frozenset({"/openapi.json"})


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


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if kind.lower() == "bearer" else None
    return None


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
        body = CountedBody(scope, receive, API_BODY_CAPS(scope["method"], path))
        sending = body.send_to(send)
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
            await self._checked(scope, receive, sending, client, body, instance)
        finally:
            await run_in_threadpool(self._record, scope, client, body, root)

    async def _checked(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        client: ApiClient,
        body: CountedBody,
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
        if body.declared_over:
            await _answer(BodyTooLarge(body.cap), scope, receive, send, instance)
            return
        try:
            await self.app(scope, body.receive, send)
        except (ApiProblem, BodyTooLarge) as exc:  # raised where no route was there to answer
            if body.answered:
                raise
            await _answer(exc, scope, receive, send, instance)
        except Exception:
            log_failure(instance)
            if body.answered:
                raise
            await internal_error(instance)(scope, receive, send)

    def _record(self, scope: Scope, client: ApiClient, body: CountedBody, root: str) -> None:
        """The call's audit entry: its method, route and status, and the claim it was about."""
        if body.status is None:
            return
        template = self._template(scope["path"].removeprefix(root))
        named = f"{root}{template}" if template else "(no such route)"
        state = scope.get("state", {})
        self.store.record_call(
            client.name,
            f"{scope['method']} {named}",
            body.status,
            str(state.get("claim_id", "")),
            str(state.get("claim_sha256", "")),
        )


async def _answer(
    exc: ApiProblem | BodyTooLarge, scope: Scope, receive: Receive, send: Send, instance: str
) -> None:
    code = exc.code if isinstance(exc, ApiProblem) else "payload_too_large"
    response = problem_response(exc.status_code, code, str(exc.detail), instance, exc.headers)
    await response(scope, receive, send)
