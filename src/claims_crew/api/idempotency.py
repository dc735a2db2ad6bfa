"""Idempotency-Key: a retried submit gets the first answer, not a second claim.

A client that lost the answer to a submit (a timeout, a dropped connection) sends it again with
the same `Idempotency-Key`. The first answer to each (client, key) is kept in the store with
the SHA-256 of the request it answered (the files' names and bytes, not the multipart framing,
which differs between retries): the same request again gets that answer back, marked
`Idempotent-Replayed: true`; another request under the same key is 422
idempotency_key_reused. A refusal is kept as well (the same files would be refused again); a
server error is not, so a retry after one is tried afresh.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response

from claims_crew.api.problems import PROBLEM_TYPE, ApiProblem, problem_body
from claims_crew.store import Remembered, Store

REPLAYED = "Idempotent-Replayed"


@dataclass(frozen=True)
class Replay:
    """An answer as it is kept: status, JSON body, Location."""

    status: int
    body: str
    location: str | None = None


def _response(answer: Replay | Remembered, replayed: bool) -> Response:
    headers = {"Location": answer.location} if answer.location else {}
    if replayed:
        headers[REPLAYED] = "true"
    kind = PROBLEM_TYPE if answer.status >= 400 else "application/json"
    return Response(answer.body, status_code=answer.status, media_type=kind, headers=headers)


def _claim_of(request: Request, body: str) -> None:
    """Name the claim a replayed answer is about, for the call's audit entry."""
    found = json.loads(body)
    if isinstance(found, dict) and "claim_id" in found:
        request.state.claim_id = found["claim_id"]
        request.state.claim_sha256 = found.get("sha256", "")


def answer_once(
    store: Store,
    client: str,
    key: str | None,
    digest: str,
    request: Request,
    answer: Callable[[], Replay],
) -> Response:
    """`answer()`, or with `key`, the answer first given under it to the request whose
    SHA-256 is `digest` (submit.request_sha256)."""
    if key is None:
        return _response(answer(), replayed=False)
    kept = store.remembered(client, key)
    if kept is None:
        try:
            given = answer()
        except ApiProblem as exc:
            if exc.status_code >= 500:
                raise
            body = problem_body(exc.status_code, exc.code, str(exc.detail), request.url.path)
            given = Replay(exc.status_code, body.decode("utf-8"))
        kept = store.remember(client, key, digest, given.status, given.body, given.location)
        if kept.request_sha256 == digest and kept.body == given.body:
            return _response(given, replayed=False)
    if kept.request_sha256 != digest:
        raise ApiProblem(
            422,
            "idempotency_key_reused",
            "this Idempotency-Key was used for another request; use a new key for it",
        )
    _claim_of(request, kept.body)
    return _response(kept, replayed=True)
