"""POST /claims, GET /claims/{id}, GET /claims: submitting claims and following them."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, File, Header, Query, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field

from claims_crew.api.appeals import Appeals, status_now
from claims_crew.api.idempotency import Replay, answer_once
from claims_crew.api.problems import FORM_PROBLEMS, ApiProblem, problems_from
from claims_crew.api.submit import claim_name, read_upload, request_sha256, safe_name, submit
from claims_crew.api.views import ClaimLinks, ClaimPage, ClaimView, claim_view, links, summary
from claims_crew.claim_files import MAX_ATTACHMENT_BYTES, MAX_CLAIM_BYTES
from claims_crew.resolver.external_codes import load_external_codes
from claims_crew.run.ingest import Ingested
from claims_crew.settings import config_dir
from claims_crew.store import ClaimStatus, Store
from claims_crew.store.work_queue import Enqueued
from claims_crew.vocabulary import ClaimState, stamp

if TYPE_CHECKING:
    from claims_crew.api.app import ApiSettings

MAX_PAGE = 500


class AttachmentNote(BaseModel):
    name: str
    code: str = Field(description="needs_ocr (read in part) or changed (since intake).")
    message: str


class ClaimAccepted(BaseModel):
    """A claim taken in: kept, and queued unless the store says otherwise (`intake`)."""

    claim_id: str
    sha256: str = Field(description="SHA-256 of the claim file as kept.")
    state: ClaimState
    intake: Enqueued = Field(
        description="What ingest did: queued; already_queued; in_progress; decided (these "
        "bytes were decided already); changed_after_decision (flagged for a person, not "
        "queued); parked."
    )
    notes: list[AttachmentNote]
    links: ClaimLinks


SUBMIT_PROBLEMS = {
    **FORM_PROBLEMS,
    409: "duplicate_id: another version of this claim is queued; or "
    "idempotency_key_in_flight: the same request is being answered under this key.",
    422: "The claim file is refused (ingest's code: invalid, malformed, too_large, ...), or "
    "idempotency_key_reused.",
}
READ_PROBLEMS = {404: "not_found: no such claim.", 422: "invalid: a parameter does not fit."}
LIST_PROBLEMS = {422: "invalid: a parameter does not fit."}


def _cursor(text: str | None) -> tuple[str, str] | None:
    # An empty parameter (`cursor=`, as a form or a template may send it) is no parameter.
    if not text:
        return None
    try:
        at, claim_id = json.loads(base64.urlsafe_b64decode(text.encode("ascii")))
        return str(at), str(claim_id)
    except (ValueError, TypeError, binascii.Error) as exc:
        raise ApiProblem(422, "invalid", "cursor: not a cursor this API gave") from exc


def _since(text: str | None) -> str | None:
    """`since` as the store stamps its times (UTC, fixed width), so text order is time order;
    empty is none, as for the cursor."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ApiProblem(422, "invalid", "since: not an ISO 8601 time") from exc
    return stamp(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


def _next_link(request: Request, last: ClaimStatus) -> str:
    """The next page: the same query, from past the `last` claim of this one."""
    after = json.dumps([last.submitted_at, last.claim_id]).encode("utf-8")
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != "cursor"]
    kept.append(("cursor", base64.urlsafe_b64encode(after).decode("ascii")))
    return f"{request.scope.get('root_path', '')}/claims?{urlencode(kept)}"


def _accepted(store: Store, request: Request, done: Ingested) -> Replay:
    """The answer to a submit taken in (202): the claim's state, what intake did, its URL."""
    prefix = request.scope.get("root_path", "")
    claim_id = done.stored.claim_id
    request.state.claim_id, request.state.claim_sha256 = claim_id, done.sha256
    status = store.claim_state(claim_id)
    assert status is not None and done.state is not None  # kept just now
    body = ClaimAccepted(
        claim_id=claim_id,
        sha256=done.sha256,
        state=status.state,
        intake=done.state,
        notes=[AttachmentNote(name=n, code=c, message=m) for n, c, m in done.notes],
        links=links(prefix, status),
    )
    return Replay(202, body.model_dump_json(), f"{prefix}/claims/{claim_id}")


def claim_routes(store: Store, settings: ApiSettings, appeals: Appeals) -> APIRouter:
    router = APIRouter(tags=["claims"])

    @router.post(
        "/claims",
        status_code=202,
        response_model=ClaimAccepted,
        responses=problems_from(SUBMIT_PROBLEMS),
        summary="Submit a claim file and its attachments",
    )
    def submit_claim(
        request: Request,
        claim: Annotated[UploadFile, File(description="The claim file: JSON or YAML.")],
        attachments: Annotated[
            list[UploadFile] | None,
            File(description="Each file the claim names in `attachments`, by that name."),
        ] = None,
        idempotency_key: Annotated[str | None, Header(max_length=255)] = None,
    ) -> Response:
        """Checked exactly as `claims-crew ingest` checks a file, kept and queued for review."""
        claim_upload = read_upload(claim, MAX_CLAIM_BYTES, claim_name(claim.filename))
        uploads = [
            read_upload(a, MAX_ATTACHMENT_BYTES, safe_name(a.filename, "an attachment"))
            for a in attachments or []
        ]

        # Hashed once: it names the submit's folder and keys its Idempotency-Key answer.
        digest = request_sha256(claim_upload, uploads)

        def answer() -> Replay:
            done = submit(store, claim_upload, uploads, digest, settings.claim_deadline_s)
            return _accepted(store, request, done)

        client = request.state.client
        return answer_once(store, client, idempotency_key, digest, request, answer)

    @router.get(
        "/claims/{claim_id}",
        response_model=ClaimView,
        responses=problems_from(READ_PROBLEMS),
        summary="A claim's state, decision, amount payable and links",
    )
    def get_claim(request: Request, claim_id: str) -> ClaimView:
        status = status_now(store, appeals, claim_id)
        request.state.claim_id, request.state.claim_sha256 = claim_id, status.sha256
        codes = load_external_codes(config_dir())
        return claim_view(store, request.scope.get("root_path", ""), status, codes)

    @router.get(
        "/claims",
        response_model=ClaimPage,
        responses=problems_from(LIST_PROBLEMS),
        summary="Claims in submission order, a page at a time",
    )
    def list_claims(
        request: Request,
        state: Annotated[ClaimState | None, Query(description="Only claims in this state.")] = None,
        since: Annotated[
            str | None,
            Query(description="Only claims submitted at or after (ISO 8601, UTC); empty: all."),
        ] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
        cursor: Annotated[
            str | None, Query(description="From the `next` link; empty: the first page.")
        ] = None,
    ) -> ClaimPage:
        prefix = request.scope.get("root_path", "")
        found = store.claim_states(state, _since(since), _cursor(cursor), limit + 1)
        page = found[:limit]
        following = _next_link(request, page[-1]) if len(found) > limit else None
        return ClaimPage(claims=[summary(prefix, s) for s in page], next=following)

    return router
