"""Idempotency-Key: a retried submit gets the first answer, not a second claim.

A client that lost the answer to a submit (a timeout, a dropped connection) sends it again with
the same `Idempotency-Key`. Each (client, key) is reserved in the store for the SHA-256 of one
request (the files' names and bytes, not the multipart framing, which differs between retries)
BEFORE that request is answered, and its answer is then kept with it. So of requests racing
under one key, only the one that reserved it is ever taken in:

- the same request again gets the kept answer back, marked `Idempotent-Replayed: true`;
- the same request while the first is still being answered is 409
  idempotency_key_in_flight, with Retry-After: nothing is taken in twice;
- another request under the same key, answered or in flight, is 422 idempotency_key_reused.

A refusal is kept as well (the same files would be refused again); a server error is not: the
reservation is released, so a retry after one is tried afresh. A reservation whose server died
while answering is taken over by the same request after RESERVATION_S.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response

from claims_crew.api.problems import PROBLEM_TYPE, ApiProblem, problem_body
from claims_crew.store import IN_FLIGHT, Remembered, Store

REPLAYED = "Idempotent-Replayed"
# A request still in flight after this long was lost with its server (a submit's files are
# read within the claim's deadline, minutes): the same request may take its key over.
RESERVATION_S = 600
# What a retry of a request in flight is told to wait: a submit is answered in seconds.
RETRY_AFTER_S = 5


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


def _given(request: Request, answer: Callable[[], Replay]) -> Replay:
    """`answer()`, a refusal (a problem under 500) as the answer it is."""
    try:
        return answer()
    except ApiProblem as exc:
        if exc.status_code >= 500:
            raise
        body = problem_body(exc.status_code, exc.code, str(exc.detail), request.url.path)
        return Replay(exc.status_code, body.decode("utf-8"))


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
    kept = store.reserve(client, key, digest, RESERVATION_S)
    if kept is None:  # ours: nobody else answers under this key until it is kept or released
        try:
            given = _given(request, answer)
        except BaseException:
            store.release_key(client, key, digest)
            raise
        store.remember(client, key, digest, given.status, given.body, given.location)
        return _response(given, replayed=False)
    if kept.request_sha256 != digest:
        raise ApiProblem(
            422,
            "idempotency_key_reused",
            "this Idempotency-Key was used for another request; use a new key for it",
        )
    if kept.status == IN_FLIGHT:
        raise ApiProblem(
            409,
            "idempotency_key_in_flight",
            "this request is being answered under this Idempotency-Key; send it again later",
            {"Retry-After": str(RETRY_AFTER_S)},
        )
    _claim_of(request, kept.body)
    return _response(kept, replayed=True)
