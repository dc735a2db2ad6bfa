"""The appeal form: a decided claim reopened with new evidence from its page (run/appeal.py).

The files are taken as the claim's own attachments are: each kept under its bare name (no
folder), at most MAX_ATTACHMENT_BYTES, in a folder of its own, and handed to the appeal, which
reads them through the claim-file intake path. The review runs in the request's worker thread;
the page comes back on the claim with its new escalation, or with why the appeal was refused.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import PlainTextResponse, RedirectResponse, Response

from claims_crew.claim_files import MAX_ATTACHMENT_BYTES
from claims_crew.review.pages import Pages, Session
from claims_crew.review.routes_escalation import detail_page
from claims_crew.store import NotFound, StoreError


def appeal_routes(pages: Pages) -> APIRouter:
    """POST /escalations/{claim_id}/appeal."""
    router = APIRouter()

    @router.post("/escalations/{claim_id}/appeal")
    def appeal(
        request: Request,
        claim_id: str,
        attachments: Annotated[list[UploadFile], File()],
        reason: str = Form(""),
        csrf: str = Form(""),
    ) -> Response:
        session = pages.posted(request, csrf)
        if not isinstance(session, Session):
            return session
        if pages.appeal is None:
            return PlainTextResponse("This page takes no appeals", status_code=404)
        with tempfile.TemporaryDirectory(prefix="appeal-") as folder:
            try:
                files = [_kept(upload, Path(folder)) for upload in attachments]
                error = pages.appeal(claim_id, files, reason)
            except NotFound:
                return PlainTextResponse("No such claim", status_code=404)
            except StoreError as exc:
                return detail_page(pages, request, session, claim_id, 400, str(exc))
        if error is not None:
            return detail_page(pages, request, session, claim_id, 500, error)
        return RedirectResponse(f"/escalations/{claim_id}", status_code=303)

    return router


def _kept(upload: UploadFile, folder: Path) -> Path:
    """One uploaded file under its bare name in `folder`; a nameless or oversized one refused."""
    name = Path(upload.filename or "").name
    if not name or name.startswith("."):
        raise StoreError("each attachment needs a file name")
    data = upload.file.read(MAX_ATTACHMENT_BYTES + 1)
    if len(data) > MAX_ATTACHMENT_BYTES:
        raise StoreError(f"{name} is over {MAX_ATTACHMENT_BYTES:,} bytes, the attachment cap")
    path = folder / name
    if path.exists():
        raise StoreError(f"two attachments are named {name}")
    path.write_bytes(data)
    return path
