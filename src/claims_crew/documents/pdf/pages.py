"""Scanned PDF pages drawn for OCR: rendered with pdfium in a bounded child process
(rendering.py), each checked against the claim's pixel budget before it is drawn."""

from __future__ import annotations

import math
from collections.abc import Iterator

from PIL import Image

from claims_crew.documents.limits import OCR_DPI, AttachmentError, ClaimBudget
from claims_crew.documents.pdf.rendering import PdfRenderer, RenderError, RenderProblem
from claims_crew.vocabulary import ClaimFileProblem

# A page over the memory cap is too large to read; one over its time is an OCR failure, as an
# OCR engine that outlasts the claim's deadline is; a page pdfium cannot open or draw was never
# a document it could read.
_RENDER_CODES: dict[RenderProblem, ClaimFileProblem] = {
    "memory": "too_large",
    "time": "ocr_failed",
    "unreadable": "unsupported_type",
}


def rendered_pdf_pages(
    name: str, data: bytes, numbers: list[int], budget: ClaimBudget
) -> Iterator[tuple[int, Image.Image]]:
    """The pages `numbers` (1-based) of a PDF at OCR_DPI, each refused if its size at that
    resolution is over the pixel caps (a page may declare itself 200 inches wide), or if drawing
    it goes over the memory cap or the time limit (budget.render, and the claim's deadline).

    One child draws them all, in turn (pdf/rendering.py); it waits while the caller reads
    each page by OCR before asking for the next.
    """
    scale = OCR_DPI / 72  # PDF sizes are in points, 72 to the inch
    try:
        with PdfRenderer(name, data, budget.render, budget.time_for(name)) as renderer:
            for number in numbers:
                width, height = renderer.sizes[number - 1]
                what = f"{name} page {number}"
                budget.take_pixels(
                    f"{what} at {OCR_DPI} dpi", math.ceil(width * scale), math.ceil(height * scale)
                )
                image = renderer.draw(number, scale, grey=True, seconds=budget.time_for(what))
                yield number, image
    except RenderError as exc:
        raise AttachmentError(_RENDER_CODES[exc.code], str(exc)) from exc
    except OSError as exc:
        raise AttachmentError(
            "ocr_failed", f"{name}: the page renderer could not start: {exc}"
        ) from exc
