"""A scanned policy wording (a PDF with no text layer) read by OCR into page texts.

The reader child finds no text on such a PDF; instead of refusing it as `no_text_layer`, each
page is drawn at OCR_DPI by pdfium and read by the same OCR as claim attachments
(documents/images/ocr.py). What OCR read is not what the insurer printed, so the index records that
the wording was read by OCR, with its confidence and the lines the engine was unsure of;
`policy tree` shows them, and the library gives such a wording to claims only once its entry
in policies/index.yaml says `ocr_reviewed: true` (library.py).

By the time a page is drawn, the reader child has already opened the file within its time
limit (the text layer came back empty, not as an error), so pdfium is not the first to parse
bytes nobody has vetted. Each page is refused before it is drawn when it would be over
MAX_PAGE_PIXELS at OCR_DPI (a page may declare itself 200 inches wide), is drawn in a child
process under the same memory cap and time limit as a claim's scanned page (documents/
rendering.py; over either, the wording is `malformed` or `timeout`), and each page's OCR has
OCR_PAGE_TIMEOUT_S.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from PIL import Image

from claims_crew.documents.images.ocr import OcrError, ocr_unavailable, read_image
from claims_crew.documents.limits import OCR_DPI, RenderLimits
from claims_crew.documents.pdf.rendering import PdfRenderer, RenderError
from claims_crew.documents.pdf.text import MIN_LETTERS_PER_PAGE
from claims_crew.errors import PolicyError, PolicyErrorCode
from claims_crew.policy.ocr_reading import LOW_CONFIDENCE, OcrLineNote, OcrReading

# A4 at 300 dpi is 8.7 megapixels; twice A3's is far beyond any page of a wording.
MAX_PAGE_PIXELS = 40_000_000
OCR_PAGE_TIMEOUT_S = 60.0


def ocr_pages(path: Path, data: bytes) -> tuple[list[str], OcrReading]:
    """The page texts OCR reads on the scanned PDF `data` (from `path`), and what it was sure of.

    Raises PolicyError: `needs_ocr` (with the install line) where no OCR engine is installed,
    `ocr_failed` where it fails on a page, `no_text_layer` where OCR finds no text either,
    `malformed` where pdfium cannot open the file or a page is over the pixel cap or the memory
    cap, `timeout` where drawing a page outlasts its limit.
    """
    if (install := ocr_unavailable()) is not None:
        raise PolicyError(
            "needs_ocr",
            f"{path.name}: no text layer, and no OCR engine to read the scan: {install}",
        )
    texts: list[str] = []
    notes: list[OcrLineNote] = []
    weighted, words = 0.0, 0
    for number, image in _pages(path, data):
        try:
            page = read_image(image, timeout_s=OCR_PAGE_TIMEOUT_S)
        except OcrError as exc:
            code: PolicyErrorCode = "needs_ocr" if exc.code == "needs_ocr" else "ocr_failed"
            raise PolicyError(code, f"{path.name} page {number}: {exc}") from exc
        texts.append(page.text)
        count = len(page.text.split())
        weighted, words = weighted + page.confidence * count, words + count
        notes.extend(
            OcrLineNote(page=number, text=line.text, confidence=round(line.confidence, 3))
            for line in page.lines
            if line.confidence < LOW_CONFIDENCE
        )
    letters = sum(ch.isalpha() for text in texts for ch in text)
    if letters < MIN_LETTERS_PER_PAGE * len(texts):  # blank pages, or a picture with no words
        raise PolicyError(
            "no_text_layer",
            f"{path.name}: no text layer, and OCR found no text on it either ({letters} "
            f"letters on {len(texts)} pages)",
        )
    confidence = round(weighted / words, 3) if words else 0.0
    return texts, OcrReading(confidence=confidence, low_confidence_lines=tuple(notes))


def _pages(path: Path, data: bytes) -> Iterator[tuple[int, Image.Image]]:
    """Each page drawn in grey at OCR_DPI, one at a time, checked against the pixel cap, by one
    child under the render limits (documents/pdf/rendering.py)."""
    scale = OCR_DPI / 72  # PDF sizes are in points, 72 to the inch
    try:
        with PdfRenderer(path.name, data, RenderLimits()) as renderer:
            for number, (width, height) in enumerate(renderer.sizes, start=1):
                pixels = math.ceil(width * scale) * math.ceil(height * scale)
                if pixels > MAX_PAGE_PIXELS:
                    raise PolicyError(
                        "malformed",
                        f"{path.name} page {number}: {width:g}x{height:g} pt is over "
                        f"{MAX_PAGE_PIXELS:,} pixels at {OCR_DPI} dpi; it is not drawn",
                    )
                yield number, renderer.draw(number, scale, grey=True)
    except RenderError as exc:
        code: PolicyErrorCode = "timeout" if exc.code == "time" else "malformed"
        raise PolicyError(code, str(exc)) from exc
    except OSError as exc:
        raise PolicyError(
            "malformed", f"{path.name}: the page renderer could not start: {exc}"
        ) from exc
