"""Scanned pages and photos into text: PDF pages rendered with pdfium, images opened with Pillow,
each checked against the claim's pixel budget before it is decoded, then read by OCR."""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Iterator

import pypdfium2
from PIL import Image, ImageOps, UnidentifiedImageError

from claims_crew.documents.limits import OCR_DPI, AttachmentError, ClaimBudget
from claims_crew.documents.ocr import OcrError, read_image
from claims_crew.documents.pdfium_lock import PDFIUM
from claims_crew.documents.record import PageText


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
    resolution is over the pixel caps (a page may declare itself 200 inches wide)."""
    # pdfium's lock is taken for each call into it, never across a yield: the caller reads each
    # page by OCR before asking for the next.
    try:
        with PDFIUM:
            document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        raise AttachmentError("unsupported_type", f"{name}: pdfium cannot open it: {exc}") from exc
    try:
        scale = OCR_DPI / 72  # PDF sizes are in points, 72 to the inch
        for number in numbers:
            with PDFIUM:
                page = document[number - 1]
                width, height = page.get_size()
            budget.take_pixels(
                f"{name} page {number} at {OCR_DPI} dpi",
                math.ceil(width * scale),
                math.ceil(height * scale),
            )
            with PDFIUM:
                image = page.render(scale=scale, grayscale=True).to_pil()
            yield number, image
    finally:
        with PDFIUM:
            document.close()


def image_frames(name: str, data: bytes, budget: ClaimBudget) -> Iterator[tuple[int, Image.Image]]:
    """Each frame of a PNG, JPEG or TIFF (a TIFF may hold several pages), upright, refused
    before decoding when it declares more pixels than the caps allow."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise AttachmentError(
            "too_large", f"{name}: refused as a decompression bomb: {exc}"
        ) from exc
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise AttachmentError(
            "unsupported_type", f"{name}: not an image Pillow reads: {exc}"
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
                    "unsupported_type", f"{name} page {index + 1}: cannot be decoded: {exc}"
                ) from exc
            yield index + 1, frame
