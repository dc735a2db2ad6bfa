"""Every error the API gives, as RFC 9457 problem details (`application/problem+json`).

A problem names its `code` in one word, the same word `claims-crew ingest` gives a refused file
(vocabulary.ClaimFileProblem) where the API refuses one, and the API's own otherwise; its `type`
is that code as a URN, so a client may branch on either. `detail` says what was wrong in words,
never echoing a secret sent (a token is never repeated). Routes raise `ApiProblem`; the
handlers below answer FastAPI's own errors (a parameter that does not fit, an unknown route, a
method a route does not take) and any other exception (500) in the same shape.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from http import HTTPStatus

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.routing import compile_path

PROBLEM_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:claims-crew:problem:"

_log = logging.getLogger(__name__)

# FastAPI's and Starlette's own refusals, by status, in the API's words.
_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    422: "invalid",
    429: "rate_limited",
    500: "internal_error",
}


class Problem(BaseModel):
    """An error, as RFC 9457 describes it, with the one-word `code` it stands for."""

    type: str = Field(description="urn:claims-crew:problem:<code>")
    title: str = Field(description="The status's own words, e.g. Unprocessable Content.")
    status: int
    detail: str = Field(description="What was wrong with this request, in words.")
    instance: str = Field(description="The path of the request that was refused.")
    code: str = Field(
        description="One word: the code `claims-crew ingest` gives a refused file "
        "(invalid, malformed, duplicate_id, too_large, ...), or unauthorized, forbidden, "
        "rate_limited, not_found, idempotency_key_reused, idempotency_key_in_flight, "
        "payload_too_large, wrong_state, "
        "no_letter, method_not_allowed, internal_error."
    )


class ApiProblem(HTTPException):
    """Raised by a route (or the guard) to answer with a problem; an HTTPException, so FastAPI
    passes it through unchanged even from where it reads a request's body."""

    def __init__(
        self, status: int, code: str, detail: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(status_code=status, detail=detail, headers=dict(headers or {}))
        self.code = code


def problem_body(status: int, code: str, detail: str, instance: str) -> bytes:
    problem = Problem(
        type=TYPE_PREFIX + code,
        title=HTTPStatus(status).phrase,
        status=status,
        detail=detail,
        instance=instance,
        code=code,
    )
    return problem.model_dump_json().encode("utf-8")


def problem_response(
    status: int,
    code: str,
    detail: str,
    instance: str,
    headers: Mapping[str, str] | None = None,
) -> Response:
    return Response(
        problem_body(status, code, detail, instance),
        status_code=status,
        media_type=PROBLEM_TYPE,
        headers=dict(headers or {}),
    )


def _instance(request: Request) -> str:
    """The request's path (a mounted app's scope keeps the whole of it)."""
    return str(request.scope.get("path", ""))


async def http_problem(request: Request, exc: Exception) -> Response:
    """An HTTPException (a route's ApiProblem, or FastAPI's and Starlette's own) as a problem."""
    assert isinstance(exc, HTTPException)
    code = exc.code if isinstance(exc, ApiProblem) else _CODES.get(exc.status_code, "error")
    detail = str(exc.detail)
    if not isinstance(exc, ApiProblem) and detail == HTTPStatus(exc.status_code).phrase:
        detail = f"{request.method} {_instance(request)}: {detail.lower()}"
    return problem_response(exc.status_code, code, detail, _instance(request), exc.headers)


async def _invalid(request: Request, exc: Exception) -> Response:
    """422, naming each part or parameter that does not fit and why (never echoing it)."""
    assert isinstance(exc, RequestValidationError)
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err['msg']}" for err in exc.errors()
    )
    return problem_response(422, "invalid", problems, _instance(request))


def internal_error(instance: str) -> Response:
    """500: what went wrong is in the server's log, never in the answer."""
    return problem_response(
        500, "internal_error", "the server failed on this request; it is logged", instance
    )


def install(app: FastAPI, routes: Iterable[tuple[str, Iterable[str]]]) -> None:
    """Answer every error of `app` as a problem; a 405 names in Allow every method of the
    `routes` (path template, methods) that serve its path. Starlette's own names only the
    first route that matched the path: half of /claims, which has a GET and a POST."""
    served = [(compile_path(path)[0], frozenset(methods)) for path, methods in routes]

    async def answer(request: Request, exc: Exception) -> Response:
        response = await http_problem(request, exc)
        if response.status_code == 405 and not isinstance(exc, ApiProblem):
            path = request.scope["path"].removeprefix(request.scope.get("root_path", ""))
            methods = {m for regex, named in served if regex.match(path) for m in named}
            response.headers["Allow"] = ", ".join(sorted(methods))
        return response

    app.add_exception_handler(HTTPException, answer)
    app.add_exception_handler(RequestValidationError, _invalid)


# What the guard (guard.py) may answer any route with, before the route is reached.
GUARD_PROBLEMS = {
    401: "unauthorized: no token, or one unknown or revoked.",
    403: "forbidden: the client lacks the scope the method needs (read, or submit).",
    413: "payload_too_large: the body is over the route's cap.",
    429: "rate_limited: over the client's calls a minute; see Retry-After.",
}


# What a route that reads a multipart form may answer when it cannot read it at all.
FORM_PROBLEMS = {
    400: "bad_request: the body is not a multipart form that can be read (no boundary, a "
    "broken one, over 1,000 parts or files).",
}


def problems_from(responses: Mapping[int, str]) -> dict[int | str, dict[str, object]]:
    """The OpenAPI `responses` of a route: each status it or the guard may refuse with, as a
    Problem."""
    return {
        status: {"model": Problem, "description": why, "content": {PROBLEM_TYPE: {}}}
        for status, why in {**GUARD_PROBLEMS, **responses}.items()
    }


def log_failure(path: str) -> None:
    _log.exception("the API failed on %s", path)
