"""What the OCR tests share: a skip where Tesseract is not installed, and pages to read."""

from __future__ import annotations

from pathlib import Path

import pypdfium2
import pytest
from PIL import Image

from claims_crew.documents.images.ocr import ocr_unavailable

needs_tesseract = pytest.mark.skipif(
    ocr_unavailable() is not None, reason=f"needs Tesseract: {ocr_unavailable()}"
)


def rendered_page(pdf: Path, index: int = 0, dpi: int = 300) -> Image.Image:
    """One page of a real PDF as the pixels a scanner would give."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        return document[index].render(scale=dpi / 72).to_pil()
    finally:
        document.close()
