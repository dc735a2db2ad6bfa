"""Scanned pages and photos into text: PDF pages rendered with pdfium in a bounded child process,
images opened with Pillow, each checked against the claim's pixel budget before it is decoded,
then read by OCR. HEIC and HEIF photos (an iPhone's default) are opened through pi-heif's
Pillow plugin, which reads the size from the file's header as Pillow's own formats do, so the
pixel caps are checked before libheif decodes anything."""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Iterator

from pi_heif import register_heif_opener
from PIL import Image, ImageOps, UnidentifiedImageError

from claims_crew.documents.limits import OCR_DPI, AttachmentError, ClaimBudget
from claims_crew.documents.ocr import OcrError, read_image
from claims_crew.documents.record import PageText
from claims_crew.documents.rendering import PdfRenderer, RenderError, RenderProblem
from claims_crew.vocabulary import ClaimFileProblem

register_heif_opener()
# A page over the memory cap is too large to read; one over its time is an OCR failure, as an
# OCR engine that outlasts the claim's deadline is; a page pdfium cannot open or draw was never
# a document it could read.
_RENDER_CODES: dict[RenderProblem, ClaimFileProblem] = {
    "memory": "too_large",
    "time": "ocr_failed",
    "unreadable": "unsupported_type",
}


def ocr_page(name: str, number: int, image: Image.Image, budget: ClaimBudget) -> PageText:
    """One page's OCR text, within what is left of the claim's time."""
    what = f"{name} page {number}"
    try:
        page = read_image(image, timeout_s=budget.time_for(what))
    except OcrError as exc:
        raise AttachmentError("ocr_failed", f"{what}: {exc}") from exc
    return PageText(
        number=number, text=page.text, source="ocr", confidence=page.confidence, lines=page.lines
    )


def rendered_pdf_pages(
    name: str, data: bytes, numbers: list[int], budget: ClaimBudget
) -> Iterator[tuple[int, Image.Image]]:
    """The pages `numbers` (1-based) of a PDF at OCR_DPI, each refused if its size at that
    resolution is over the pixel caps (a page may declare itself 200 inches wide), or if drawing
    it goes over the memory cap or the time limit (budget.render, and the claim's deadline).

    One child draws them all, in turn (documents/rendering.py); it waits while the caller reads
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


def image_frames(name: str, data: bytes, budget: ClaimBudget) -> Iterator[tuple[int, Image.Image]]:
    """Each frame of a PNG, JPEG, TIFF or HEIC (a TIFF may hold several pages), upright, refused
    before decoding when it declares more pixels than the caps allow."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise AttachmentError(
            "too_large", f"{name}: refused as a decompression bomb: {exc}"
        ) from exc
    except UnidentifiedImageError as exc:  # its message names only an in-memory buffer
        raise AttachmentError(
            "unsupported_type", f"{name}: not a PNG, JPEG, TIFF or HEIC image that can be opened"
        ) from exc
    except (OSError, ValueError) as exc:
        raise AttachmentError(
            "unsupported_type",
            f"{name}: not a PNG, JPEG, TIFF or HEIC image that can be opened: {exc}",
        ) from exc
    with image:
        count = getattr(image, "n_frames", 1)
        budget.take_pages(name, count)
        for index in range(count):
            image.seek(index)
            budget.take_pixels(f"{name} page {index + 1}", *image.size)
            try:
                frame = ImageOps.exif_transpose(image.copy())
            except (OSError, ValueError, Image.DecompressionBombError) as exc:
                raise AttachmentError(
                    "unsupported_type",
                    f"{name} page {index + 1}: cannot be decoded: {str(exc).strip()}",
                ) from exc
            yield index + 1, frame
