"""The HTTP API a claims system calls: /api/v1, mounted on the review app by `claims-crew serve`.

`create_api` builds it over one store. Its guard (guard.py) checks the token, the rate limit,
the scope and the body's cap before a route reads anything; every error is a problem
(problems.py). The routes are thin: a submit is `claims-crew ingest` of the uploaded files
(submit.py), a claim's view is read from the store and built as letters build theirs (views.py),
a letter is `claims-crew letter`'s (letters/issue.py), and a document arriving later is kept
for the reviewer or starts an appeal (documents.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI
from fastapi.routing import APIRoute

from claims_crew.api.appeals import Appeals
from claims_crew.api.guard import Guard
from claims_crew.api.openapi_document import describe_problems
from claims_crew.api.problems import install
from claims_crew.api.routes_claims import claim_routes
from claims_crew.api.routes_documents import document_routes
from claims_crew.settings.declarations import DEFAULT_API_CALLS_PER_MINUTE
from claims_crew.store import Store

API_PREFIX = "/api/v1"
# Every path under it is the API's, this version's or not: the review app answers any such
# path that no route serves as the API would, with a problem.
API_ROOT = "/api"
VERSION = "1.0.0"

DESCRIPTION = """\
Submit insurance claims to claims-crew and follow them to a decision.

* **Authentication:** every call carries `Authorization: Bearer <token>`; a token is made with
  `claims-crew clients add NAME --scope submit,read` and shown once. `submit` lets a client
  send claims and documents, `read` lets it read claims and letters.
* **Errors** are RFC 9457 problem details (`application/problem+json`) with a one-word `code`:
  a refused claim file gets the same code and message `claims-crew ingest` gives it.
* **Retries:** send an `Idempotency-Key` header with `POST /claims`; a retry with the same key
  and request gets the first answer again (`Idempotent-Replayed: true`).
* **Rate limit:** each client may make CLAIMS_CREW_API_CALLS_PER_MINUTE calls a minute
  (default 120); past it the answer is 429 with `Retry-After`.
* **Decisions** are announced by signed webhooks (Standard Webhooks), not polled for.
"""

# Runs an appeal of a decided claim with new evidence; why it was not decided, or None.
Appealer = Callable[[str, list[Path], str], str | None]


@dataclass(frozen=True)
class ApiSettings:
    """What the API is told by the server that mounts it."""

    calls_per_minute: int = DEFAULT_API_CALLS_PER_MINUTE
    # How long reading a claim's attachments may take (OCR): the claim's deadline, as ingest.
    claim_deadline_s: float | None = None
    appeal: Appealer | None = None

    @classmethod
    def from_environment(cls, appeal: Appealer | None = None) -> ApiSettings:
        from claims_crew.settings import Limits, current

        return cls(
            calls_per_minute=current().claims_crew_api_calls_per_minute,
            claim_deadline_s=Limits.from_environment().claim_deadline_s,
            appeal=appeal,
        )


def under_api(path: str) -> bool:
    """Whether `path` (the whole of it, at the server's root) is one only the API answers."""
    return path == API_ROOT or path.startswith(API_ROOT + "/")


def create_api(store: Store, settings: ApiSettings) -> FastAPI:
    """The API over `store`, to be mounted at API_PREFIX."""
    app = FastAPI(
        title="claims-crew API",
        version=VERSION,
        description=DESCRIPTION,
        openapi_url="/openapi.json",
        # No Swagger UI: FastAPI loads it from a CDN, which an offline server cannot reach and
        # the page's no-script policy forbids. Its page is docs/api.md; any OpenAPI viewer reads
        # /api/v1/openapi.json.
        docs_url=None,
        redoc_url=None,
    )
    appeals = Appeals()
    routers = [claim_routes(store, settings, appeals), document_routes(store, settings, appeals)]
    for router in routers:
        app.include_router(router)
    routes = [
        (route.path, route.methods or set())
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute)
    ]
    install(app, routes)
    describe_problems(app)
    templates = [path for path, _ in routes]
    app.add_middleware(
        Guard, store=store, per_minute=settings.calls_per_minute, templates=templates
    )
    return app
