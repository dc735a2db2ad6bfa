"""The API's OpenAPI document as the API answers: every error a Problem, as sent.

FastAPI describes a route's error answers by their model under `application/json`, and adds a
422 of its own (HTTPValidationError) to every route that takes a parameter. The API sends
neither: every error is a Problem in `application/problem+json` (problems.py). A client that
checks an answer against the document (or a generator of clients) would meet a content type
and a body the document never named, so the document is rewritten once, after FastAPI makes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from claims_crew.api.problems import PROBLEM_TYPE

_PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
# FastAPI's own 422 body, which the API never sends.
_UNSENT = ("HTTPValidationError", "ValidationError")


def problems_as_sent(document: dict[str, Any]) -> dict[str, Any]:
    """`document` with each 4xx and 5xx answer a Problem in application/problem+json, only;
    changed in place (it is FastAPI's cached document) and returned."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for status, answer in operation.get("responses", {}).items():
                if str(status)[:1] in ("4", "5"):
                    answer["content"] = {PROBLEM_TYPE: {"schema": dict(_PROBLEM_REF)}}
    schemas = document.get("components", {}).get("schemas", {})
    for name in _UNSENT:
        schemas.pop(name, None)
    return document


def describe_problems(app: FastAPI) -> None:
    """Serve `app`'s document with its errors as problems_as_sent describes them."""
    made: Callable[[], dict[str, Any]] = app.openapi

    def document() -> dict[str, Any]:
        return problems_as_sent(made())

    app.openapi = document  # type: ignore[method-assign]
