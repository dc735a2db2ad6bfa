"""GET /claims/{id}/letter and POST /claims/{id}/documents.

A letter is `claims-crew letter`'s (letters/issue.py): rendered from the decision in force and
recorded in the audit trail with its hash, each time it is fetched.

A document arriving later depends on where the claim stands:
- escalated: the open question's answer, for the person deciding it. Each file is read by the
  readers intake reads attachments with (documents/read.py: text, PDF, photo, Office, e-mail)
  and kept with its text of record (Store.add_later_document); the escalation's page lists it;
- decided: an appeal's evidence, with a `reason`. The appeal (run/appeal.py) reopens the claim
  and has it reviewed again, which takes minutes: it runs in a thread of this process, the
  answer is 202 at once, and the claim reads under_review until it is done (here, and in every
  process once the appeal holds the claim's lease);
- any other state: 409 wrong_state, nothing kept.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field

from claims_crew.api.appeals import Appeals, status_now
from claims_crew.api.problems import FORM_PROBLEMS, ApiProblem, problems_from
from claims_crew.api.submit import api_dir, read_upload, safe_name
from claims_crew.claim_files import MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS_BYTES
from claims_crew.documents.kept import write_new_file
from claims_crew.documents.limits import AttachmentError, ClaimBudget
from claims_crew.documents.read import read_document
from claims_crew.letters.content import NoLetter, UnknownClaim
from claims_crew.letters.issue import issue_letter
from claims_crew.letters.render import LETTERS_DIR, Format
from claims_crew.settings import config_dir
from claims_crew.store import Store

if TYPE_CHECKING:
    from claims_crew.api.app import ApiSettings

_log = logging.getLogger(__name__)

MEDIA_TYPES: dict[Format, str] = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
}


class DocumentsAccepted(BaseModel):
    claim_id: str
    kind: Literal["later_document", "appeal"] = Field(
        description="later_document: kept for the escalation's reviewer; appeal: the claim is "
        "being reviewed again with this evidence."
    )
    documents: list[str] = Field(description="The files received, by name.")
    state: str


def _uploads(files: list[UploadFile]) -> list[tuple[str, bytes]]:
    found = []
    for upload in files:
        read = read_upload(upload, MAX_ATTACHMENT_BYTES, safe_name(upload.filename, "a document"))
        found.append((read.name, read.data))
    if sum(len(data) for _, data in found) > MAX_ATTACHMENTS_BYTES:
        raise ApiProblem(422, "too_large", f"over {MAX_ATTACHMENTS_BYTES:,} bytes together")
    if len({name for name, _ in found}) < len(found):
        raise ApiProblem(422, "invalid", "two documents have the same file name")
    return found


def _keep_later(
    store: Store, claim_id: str, files: list[tuple[str, bytes]], client: str, seconds: float | None
) -> None:
    """Each document read as intake reads an attachment, all before any is kept."""
    budget = ClaimBudget(seconds)
    records = []
    for name, data in files:
        try:
            records += read_document(name, data, budget)
        except AttachmentError as exc:
            raise ApiProblem(422, exc.code, f"document {exc}") from exc
    for record, _ in records:
        store.add_later_document(claim_id, record.name, record.sha256, record.text, client)


def _appeal(
    settings: ApiSettings,
    appeals: Appeals,
    claim_id: str,
    files: list[tuple[str, bytes]],
    reason: str,
) -> None:
    """Start the appeal in a thread of its own; its files live until it is done."""
    appeal = settings.appeal
    if appeal is None:
        raise ApiProblem(409, "wrong_state", "this server takes no appeals")
    if not reason.strip():
        raise ApiProblem(422, "invalid", "reason: an appeal needs a reason")
    if not appeals.start(claim_id):
        raise ApiProblem(409, "wrong_state", f"claim {claim_id} is being appealed already")
    api_dir().mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=".appeal-", dir=api_dir()))
    paths = []
    for name, data in files:
        path = folder / Path(name).name
        write_new_file(path, data)
        paths.append(path)

    def run() -> None:
        try:
            error = appeal(claim_id, paths, reason)
            if error is not None:
                _log.warning("the appeal of claim %s was not decided: %s", claim_id, error)
        except Exception:
            _log.exception("the appeal of claim %s failed", claim_id)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            appeals.done(claim_id)

    threading.Thread(target=run, name=f"appeal-{claim_id}", daemon=True).start()


def document_routes(store: Store, settings: ApiSettings, appeals: Appeals) -> APIRouter:
    router = APIRouter(tags=["claims"])

    @router.get(
        "/claims/{claim_id}/letter",
        responses={
            200: {
                "content": {t: {} for t in MEDIA_TYPES.values()},
                "description": "The letter; each one fetched is recorded in the audit trail.",
            },
            **problems_from({404: "No such claim.", 409: "no_letter: not decided yet."}),
        },
        response_class=Response,
        summary="The decision letter (PDF, HTML or Markdown)",
    )
    def letter(
        request: Request, claim_id: str, format: Annotated[Format, Query()] = "pdf"
    ) -> Response:
        request.state.claim_id = claim_id
        try:
            issued = issue_letter(store, claim_id, format, config_dir() / LETTERS_DIR)
        except UnknownClaim as exc:
            raise ApiProblem(404, "not_found", str(exc)) from exc
        except NoLetter as exc:
            raise ApiProblem(409, "no_letter", str(exc)) from exc
        headers = {"X-Letter-SHA256": issued.sha256, "X-Audit-Seq": str(issued.entry.audit_seq)}
        return Response(issued.content, media_type=MEDIA_TYPES[format], headers=headers)

    @router.post(
        "/claims/{claim_id}/documents",
        status_code=202,
        response_model=DocumentsAccepted,
        responses=problems_from(
            {
                **FORM_PROBLEMS,
                404: "No such claim.",
                409: "wrong_state: the claim is neither escalated nor decided.",
                422: "A document is refused (ingest's code), or an appeal has no reason.",
            }
        ),
        summary="A document arriving later: an escalation's answer, or an appeal's evidence",
    )
    def documents(
        request: Request,
        claim_id: str,
        document: Annotated[
            list[UploadFile], File(description="Each file; repeatable.", min_length=1)
        ],
        reason: Annotated[str, Form(description="Why the decision is appealed.")] = "",
    ) -> DocumentsAccepted:
        status = status_now(store, appeals, claim_id)
        request.state.claim_id, request.state.claim_sha256 = claim_id, status.sha256
        files = _uploads(document)
        client = str(request.state.client)
        if status.state == "escalated":
            _keep_later(store, claim_id, files, client, settings.claim_deadline_s)
            kind: Literal["later_document", "appeal"] = "later_document"
        elif status.state == "decided":
            _appeal(settings, appeals, claim_id, files, reason)
            kind = "appeal"
        else:
            raise ApiProblem(
                409,
                "wrong_state",
                f"claim {claim_id} is {status.state}: documents are taken for an escalated "
                "claim (its reviewer reads them) or a decided one (an appeal)",
            )
        now = status_now(store, appeals, claim_id)
        names = [name for name, _ in files]
        return DocumentsAccepted(claim_id=claim_id, kind=kind, documents=names, state=now.state)

    return router
