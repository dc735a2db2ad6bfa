"""The OCR engine on a page rendered from a real PDF, and without the engine."""

from __future__ import annotations

import re

import pytest
from pypdf import PdfReader

from claims_crew.documents.images.ocr import INSTALL_LINE, OcrError, ocr_unavailable, read_image
from tests.support.ocr import needs_tesseract, rendered_page
from tests.support.paths import SAMPLE_POLICIES

HARBOUR = SAMPLE_POLICIES / "harbour_home.pdf"


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@needs_tesseract
def test_a_rendered_policy_page_reads_back_as_its_text_layer() -> None:
    layer = PdfReader(HARBOUR).pages[0].extract_text()
    page = read_image(rendered_page(HARBOUR))
    expected, read = _words(layer), set(_words(page.text))
    missing = [w for w in expected if w not in read]
    # Words of the text layer the engine did not read at all: a clean render loses almost none.
    assert len(missing) <= len(expected) // 50, missing
    assert page.lines and all(0.0 <= line.confidence <= 1.0 for line in page.lines)
    assert page.text.splitlines()[0] == page.lines[0].text
    assert page.confidence > 0.85


@needs_tesseract
def test_a_blank_page_reads_as_nothing() -> None:
    blank = rendered_page(HARBOUR).point(lambda _: 255)
    page = read_image(blank)
    assert page.text == "" and page.lines == [] and page.confidence == 0.0


def test_without_the_engine_the_install_line_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_CREW_TESSERACT", "/nonexistent/tesseract")
    assert ocr_unavailable() == INSTALL_LINE
    with pytest.raises(OcrError) as caught:
        read_image(rendered_page(HARBOUR, dpi=30))
    assert caught.value.code == "needs_ocr"
    assert INSTALL_LINE in str(caught.value)
