"""Each kind of unreadable PDF gets its own reason code, and nothing is left in the cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pypdf import PdfWriter

from claims_crew.documents.images.ocr import ocr_unavailable
from claims_crew.documents.pdf.text import PdfTextError, read_text_layer
from claims_crew.errors import PolicyError
from claims_crew.policy.library import extract_pages, open_pdf
from tests.support.paths import SAMPLE_POLICIES, shared_pdf

HOME_PDF = SAMPLE_POLICIES / "harbour_home.pdf"


def _encrypted_copy(tmp_path: Path, user_password: str) -> Path:
    writer = PdfWriter(clone_from=str(HOME_PDF))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    out = tmp_path / "encrypted.pdf"
    with open(out, "wb") as handle:
        writer.write(handle)
    return out


def _encrypted(tmp_path: Path) -> Path:
    return _encrypted_copy(tmp_path, user_password="s3cret")


def _owner_password_only(tmp_path: Path) -> Path:
    """Encrypted so that printing can be restricted, but readable without a password."""
    return _encrypted_copy(tmp_path, user_password="")


def _blank_pages(tmp_path: Path) -> Path:
    writer = PdfWriter()
    for _ in range(3):
        writer.add_blank_page(width=612, height=792)
    out = tmp_path / "blank.pdf"
    with open(out, "wb") as handle:
        writer.write(handle)
    return out


def _truncated(tmp_path: Path) -> Path:
    out = tmp_path / "truncated.pdf"
    out.write_bytes(HOME_PDF.read_bytes()[: HOME_PDF.stat().st_size // 2])
    return out


def _garbage(tmp_path: Path) -> Path:
    out = tmp_path / "garbage.pdf"
    out.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF\n")
    return out


def _not_a_pdf(tmp_path: Path) -> Path:
    out = tmp_path / "claim.pdf"
    out.write_text("Dear insurer, please pay my claim.")
    return out


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (_encrypted, "encrypted"),
        # Read by OCR when there is no text layer, which finds no text either; without an OCR
        # engine it cannot even tell.
        (_blank_pages, "no_text_layer" if ocr_unavailable() is None else "needs_ocr"),
        (_truncated, "malformed"),
        (_garbage, "malformed"),
        (_not_a_pdf, "malformed"),
    ],
)
def test_bad_pdf_gets_its_reason_and_caches_nothing(
    tmp_path: Path, make: Callable[[Path], Path], code: str
) -> None:
    pdf = make(tmp_path)
    cache = tmp_path / "cache"
    with pytest.raises(PolicyError) as err:
        open_pdf(pdf, cache)
    assert err.value.code == code
    assert pdf.name in err.value.message
    assert _empty(cache)


@pytest.mark.parametrize(
    ("make", "code"),
    [(_encrypted, "encrypted"), (_truncated, "malformed"), (_garbage, "malformed")],
)
def test_the_text_reader_and_the_library_give_the_same_reason(
    tmp_path: Path, make: Callable[[Path], Path], code: str
) -> None:
    """The reader in documents/ has its own error; the library passes on its code and message."""
    pdf = make(tmp_path)
    with pytest.raises(PdfTextError) as read:
        read_text_layer(pdf, pdf.read_bytes())
    with pytest.raises(PolicyError) as extracted:
        extract_pages(pdf, pdf.read_bytes())
    assert read.value.code == extracted.value.code == code
    assert str(read.value) == extracted.value.message
    assert pdf.name in extracted.value.message


def _empty(folder: Path) -> bool:
    return not folder.exists() or not any(folder.iterdir())


@pytest.mark.slow
def test_scanned_real_policy_has_no_text_layer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader finds no text on the scan; with no OCR engine it stays unread, `needs_ocr`.
    (Read by OCR, its 16 pages are a matter for bench/, not a test: tests/test_scanned_policy.py
    reads a scanned page of a real policy.)"""
    pdf = shared_pdf("negative/arogya_sanjeevani_SCANNED_in.pdf")
    with pytest.raises(PolicyError) as err:
        extract_pages(pdf, pdf.read_bytes())
    assert err.value.code == "no_text_layer"
    monkeypatch.setenv("CLAIMS_CREW_TESSERACT", str(tmp_path / "no-such-tesseract"))
    with pytest.raises(PolicyError) as err:
        open_pdf(pdf, tmp_path / "cache")
    assert err.value.code == "needs_ocr"


def test_a_pdf_that_takes_too_long_is_stopped(tmp_path: Path) -> None:
    # Any real extraction takes longer than a millisecond; the limit, not the file, is under test.
    with pytest.raises(PolicyError) as err:
        open_pdf(HOME_PDF, tmp_path / "cache", timeout_s=0.001)
    assert err.value.code == "timeout"
    assert _empty(tmp_path / "cache")


def test_timeout_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_PDF_TIMEOUT", "0.001")
    with pytest.raises(PolicyError) as err:
        open_pdf(HOME_PDF, tmp_path / "cache")
    assert err.value.code == "timeout"


@pytest.mark.slow
def test_owner_password_only_is_readable(tmp_path: Path) -> None:
    doc = open_pdf(_owner_password_only(tmp_path), tmp_path / "cache")
    assert doc.lookup("4.2(b)") is not None
    assert doc.get("4.2(b)") is not None


def test_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(PolicyError) as err:
        open_pdf(tmp_path / "nowhere.pdf", tmp_path / "cache")
    assert err.value.code == "not_found"
