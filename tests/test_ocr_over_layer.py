"""A PDF page's own text layer is kept unless OCR reads it better: a short layer is read by OCR
as well (it may be a scan with a stamp), but OCR's text replaces it only when it holds more words
on lines the engine is sure of (limits.OCR_OVER_TEXT_LAYER_CONFIDENCE)."""

from __future__ import annotations

import io

import pytest
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter

from claims_crew.documents.images.ocr import OcrLine
from claims_crew.documents.limits import OCR_OVER_TEXT_LAYER_CONFIDENCE, ClaimBudget
from claims_crew.documents.read import ocr_reads_better, read_attachment
from claims_crew.documents.record import PageText
from tests.support.attachments import INBOX
from tests.support.forms import LOSS_NOTICE, flattened
from tests.support.ocr import needs_tesseract

SURE = OCR_OVER_TEXT_LAYER_CONFIDENCE


def _ocr(*lines: tuple[str, float]) -> PageText:
    read = [OcrLine(text=text, confidence=confidence) for text, confidence in lines]
    return PageText(number=1, text="\n".join(text for text, _ in lines), source="ocr", lines=read)


@pytest.mark.parametrize(
    ("layer", "ocr", "replaced"),
    [
        ("OUTER 1", _ocr(("OUTER |", 0.96)), False),  # fewer words than the layer
        ("OUTER 1", _ocr(("OUTER 1", 0.96)), False),  # as many: the file's own is exact
        ("COPY", _ocr(("Storm damage to the roof", SURE)), True),  # a stamp on a scan
        ("COPY", _ocr(("Storm damage to the roof", SURE - 0.01)), False),  # doubtful words
        ("COPY", _ocr(("Storm", 0.95), ("damage to the roof", 0.40)), False),
        ("", _ocr(("a faint scan", 0.30)), True),  # no layer: OCR is all there is
        (" \n ", _ocr(), True),
    ],
)
def test_ocr_replaces_a_layer_only_with_more_words_it_is_sure_of(
    layer: str, ocr: PageText, replaced: bool
) -> None:
    assert ocr_reads_better(ocr, layer) is replaced


def _text_pdf(text: str, width: float = 240, height: float = 90) -> bytes:
    """A page whose text layer is `text`, large and clear, as a generator writes one."""
    pdf = FPDF(unit="pt", format=(width, height))
    pdf.add_page()
    pdf.set_font("helvetica", size=36)
    pdf.text(20, 60, text)
    return bytes(pdf.output())


@needs_tesseract
@pytest.mark.slow  # draws the page and runs Tesseract on it
def test_a_short_text_layer_that_ocr_reads_no_better_is_kept() -> None:
    record = read_attachment("outer.pdf", _text_pdf("OUTER 1"), ClaimBudget())
    [page] = record.pages
    assert (page.source, page.text) == ("text", "OUTER 1")
    assert record.problem is None


@needs_tesseract
@pytest.mark.slow  # OCR of a whole scanned page
def test_a_scan_with_a_stamp_in_its_text_layer_is_read_by_ocr() -> None:
    scan = PdfReader(io.BytesIO(flattened((INBOX / LOSS_NOTICE).read_bytes())))
    stamp = PdfReader(io.BytesIO(_text_pdf("COPY", *scan.pages[0].mediabox[2:])))
    writer = PdfWriter()
    writer.add_page(scan.pages[0])
    writer.pages[0].merge_page(stamp.pages[0])
    out = io.BytesIO()
    writer.write(out)
    assert PdfReader(io.BytesIO(out.getvalue())).pages[0].extract_text().strip() == "COPY"
    [page] = read_attachment("stamped.pdf", out.getvalue(), ClaimBudget()).pages
    assert page.source == "ocr"
    assert "Priya Raman" in page.text and "DATE OF LOSS" in page.text
