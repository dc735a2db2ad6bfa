"""Claim attachments as they arrive: a PDF with a text layer, a scanned PDF, a photo, and each
way one is refused (too_large, encrypted, unsupported_type, ocr_failed) or read only in part
(needs_ocr), on real files made here or by scripts/make_attachment_samples.py."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import struct
import zlib
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from claims_crew.claim_files import LoadedClaim, load_claim
from claims_crew.documents.images.ocr import INSTALL_LINE, OcrLine
from claims_crew.documents.limits import MAX_PAGES, MAX_PIXELS
from claims_crew.documents.record import PageText
from claims_crew.errors import ClaimFileError
from claims_crew.records.resolution import FactCheck
from tests.support.attachments import (
    ESTIMATE,
    ESTIMATE_CLAIM,
    INBOX,
    POLICE_REPORT,
    SPLIT_CLAIM,
    SPLIT_REPORT,
    THEFT_CLAIM,
)
from tests.support.ocr import needs_tesseract

FIELDS = json.loads(SPLIT_CLAIM.read_text(encoding="utf-8"))


def _claim_with(folder: Path, name: str, data: bytes) -> Path:
    """A copy of C-1049 whose one attachment is `data`, named `name`."""
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(data)
    path = folder / "C-1049.json"
    path.write_text(json.dumps({**FIELDS, "attachments": [name]}), encoding="utf-8")
    return path


def _refused(path: Path, seconds: float | None = None) -> ClaimFileError:
    with pytest.raises(ClaimFileError) as caught:
        load_claim(path, seconds)
    assert str(path) in str(caught.value)
    return caught.value


def _png_header(width: int, height: int) -> bytes:
    """A PNG that declares its size and holds almost nothing: how a decompression bomb starts."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit grey
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def _pdf(pages: int, width: float = 612, height: float = 792, password: str = "") -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width, height)
    if password:
        writer.encrypt(user_password=password, owner_password=password + "-owner")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_report_is_read_from_its_text_layer_page_by_page() -> None:
    loaded = load_claim(SPLIT_CLAIM)
    record = loaded.documents[SPLIT_REPORT]
    assert (record.kind, record.problem, len(record.pages)) == ("pdf", None, 2)
    assert [p.source for p in record.pages] == ["text", "text"]
    layer = PdfReader(INBOX / SPLIT_REPORT).pages[1].extract_text()
    assert record.pages[1].text == layer and "16 January 2026" in layer
    assert "16 January 2026" not in record.pages[0].text
    assert record.sha256 == hashlib.sha256((INBOX / SPLIT_REPORT).read_bytes()).hexdigest()
    assert "[page 2]" in loaded.attachments[SPLIT_REPORT]


@needs_tesseract
def test_a_scanned_police_report_is_read_by_ocr() -> None:
    record = load_claim(THEFT_CLAIM).documents[POLICE_REPORT]
    assert PdfReader(INBOX / POLICE_REPORT).pages[0].extract_text() == ""  # pixels only
    [page] = record.pages
    assert (record.kind, page.source, record.problem) == ("pdf", "ocr", None)
    assert "forced the kitchen window with a tool" in " ".join(page.text.split())
    assert page.confidence is not None and page.confidence > 0.8
    assert page.lines and all(0 <= line.confidence <= 1 for line in page.lines)


@needs_tesseract
def test_a_photographed_estimate_is_read_by_ocr() -> None:
    record = load_claim(ESTIMATE_CLAIM).documents[ESTIMATE]
    [page] = record.pages
    assert (record.kind, page.source) == ("image", "ocr")
    assert "Estimate total: 2,280.00" in page.text


def test_without_ocr_a_scan_is_needs_ocr_and_the_claim_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_TESSERACT", "/nonexistent/tesseract")
    loaded = load_claim(THEFT_CLAIM)
    record = loaded.documents[POLICE_REPORT]
    assert record.problem == "needs_ocr" and INSTALL_LINE in record.message
    assert record.pages[0].text == ""
    [(name, code, message)] = loaded.notes()
    assert (name, code) == (POLICE_REPORT, "needs_ocr") and INSTALL_LINE in message
    photo = load_claim(ESTIMATE_CLAIM).documents[ESTIMATE]
    assert (photo.problem, photo.pages) == ("needs_ocr", [])


def test_a_pdf_that_needs_a_password_is_refused_as_encrypted(tmp_path: Path) -> None:
    path = _claim_with(tmp_path, "report.pdf", _pdf(1, password="secret"))
    assert _refused(path).code == "encrypted"


def test_a_pdf_over_the_page_cap_is_refused(tmp_path: Path) -> None:
    error = _refused(_claim_with(tmp_path, "report.pdf", _pdf(MAX_PAGES + 1)))
    assert error.code == "too_large" and f"the cap is {MAX_PAGES}" in str(error)


@needs_tesseract
def test_an_image_declaring_too_many_pixels_is_refused_before_it_is_decoded(
    tmp_path: Path,
) -> None:
    # Past the project's cap, still under Pillow's own bomb limit.
    error = _refused(_claim_with(tmp_path, "photo.png", _png_header(9000, 9000)))
    assert error.code == "too_large" and f"the cap is {MAX_PIXELS:,} pixels" in str(error)


@needs_tesseract
def test_a_decompression_bomb_is_refused(tmp_path: Path) -> None:
    error = _refused(_claim_with(tmp_path / "a", "photo.png", _png_header(100_000, 100_000)))
    assert error.code == "too_large" and "decompression bomb" in str(error)
    # A PDF page 200 inches square: 60,000 pixels a side at 300 dpi.
    error = _refused(_claim_with(tmp_path / "b", "scan.pdf", _pdf(1, 14_400, 14_400)))
    assert error.code == "too_large" and "at 300 dpi" in str(error)


@needs_tesseract
def test_a_failing_ocr_engine_is_ocr_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "tesseract"
    broken.write_text(
        '#!/bin/sh\nif [ "$1" = --list-langs ]; then echo eng; exit 0; fi\n'
        "echo 'Error: out of memory' >&2\nexit 1\n"
    )
    broken.chmod(0o755)
    monkeypatch.setenv("CLAIMS_CREW_TESSERACT", str(broken))
    inbox = tmp_path / "inbox"
    shutil.copytree(INBOX, inbox, ignore=shutil.ignore_patterns("C-1042*"))
    error = _refused(inbox / THEFT_CLAIM.name)
    assert error.code == "ocr_failed" and "page 1" in str(error)


def test_a_claim_past_its_deadline_while_reading_is_ocr_failed() -> None:
    error = _refused(THEFT_CLAIM, seconds=0)
    assert error.code == "ocr_failed" and "deadline" in str(error)


def test_a_broken_pdf_is_unreadable(tmp_path: Path) -> None:
    whole = (INBOX / SPLIT_REPORT).read_bytes()
    error = _refused(_claim_with(tmp_path, "report.pdf", whole[: len(whole) // 2]))
    assert error.code == "unreadable" and "truncated" in str(error)


def test_the_kept_record_is_read_back_whole() -> None:
    from claims_crew.documents.record import records_from_json, records_json

    loaded = load_claim(SPLIT_CLAIM)
    again = records_from_json(records_json(loaded.documents))
    assert again == loaded.documents
    # A claim kept before pages were: its attachments' text alone.
    legacy = records_from_json(json.dumps({"notes.txt": "plumber's report"}))
    assert LoadedClaim(SPLIT_CLAIM, loaded.claim, loaded.raw, legacy).attachments == {
        "notes.txt": "plumber's report"
    }


def test_a_quote_from_doubtful_ocr_lines_is_marked_low_confidence() -> None:
    page = PageText(
        number=3,
        text="Crime report\nThe window was forced on 1 February 2026.\nNothing else was seen.",
        source="ocr",
        confidence=0.9,
        lines=[
            OcrLine(text="Crime report", confidence=0.97),
            OcrLine(text="The window was forced on 1 February 2026.", confidence=0.55),
            OcrLine(text="Nothing else was seen.", confidence=0.96),
        ],
    )
    # The least sure of the lines the quote is drawn from, not the page's mean.
    assert page.quote_confidence("The window was forced on 1 February 2026") == 0.55
    assert page.quote_confidence("Nothing else was seen") == 0.96
    doubtful = FactCheck(
        name="date_of_loss", status="verified", where="report.pdf", page=3, ocr_confidence=0.55
    )
    assert doubtful.low_confidence
    assert doubtful.cited() == "report.pdf, page 3 (OCR 0.55, low confidence)"
    sure = doubtful.model_copy(update={"ocr_confidence": 0.96})
    assert not sure.low_confidence and sure.cited() == "report.pdf, page 3 (OCR 0.96)"
    layer = doubtful.model_copy(update={"ocr_confidence": None})
    assert not layer.low_confidence and layer.cited() == "report.pdf, page 3"
    assert PageText(number=1, text="x").quote_confidence("x") is None
