"""GET /escalations/{claim_id}/attachments/{index}/pages/{page}.png: one page of an attachment,
for a signed-in reviewer to see beside the quote taken from it (page_image.py).

The attachment is named by its place in the claim file, never by a path or a name from the
request, so no request can reach a file intake did not keep.
"""

from __future__ import annotations

from fastapi import APIRouter, Path, Request
from fastapi.responses import PlainTextResponse, Response

from claims_crew.review.page_image import PageImageError, PageImageProblem, attachment_page
from claims_crew.review.pages import Pages
from claims_crew.store import NotFound

# A claim file lists a few attachments and a document a few hundred pages; past these a number
# is no place in either.
MAX_INDEX = 999
MAX_PAGE_NUMBER = 9_999

_STATUS: dict[PageImageProblem, int] = {
    "changed": 409,  # the file is not the one intake read
    "missing": 404,
    "no_such_page": 404,
    "unsupported_type": 404,
    "too_large": 413,
}


def page_image_routes(pages: Pages) -> APIRouter:
    router = APIRouter()

    @router.get("/escalations/{claim_id}/attachments/{index}/pages/{page}.png")
    def page_image(
        request: Request,
        claim_id: str,
        index: int = Path(ge=0, le=MAX_INDEX),
        page: int = Path(ge=1, le=MAX_PAGE_NUMBER),
    ) -> Response:
        if pages.signed_in(request) is None:
            return PlainTextResponse("Sign in first", status_code=401)
        try:
            png = attachment_page(pages.store, claim_id, index, page)
        except NotFound:
            return PlainTextResponse("No such escalation", status_code=404)
        except PageImageError as exc:
            return PlainTextResponse(f"{exc.code}: {exc}", status_code=_STATUS[exc.code])
        return Response(png, media_type="image/png")

    return router
