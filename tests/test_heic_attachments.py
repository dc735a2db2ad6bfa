"""HEIC photos, an iPhone's default, as claim attachments: opened through pi-heif, their size
taken from the file's header and checked against the pixel caps before anything is decoded, then
read by OCR as any photo; a broken one refused with a reason. pillow-heif writes the HEIC files
made here (scripts/make_attachment_samples.py makes the sample's)."""

from __future__ import annotations

import hashlib
import io
import json
import struct
from collections.abc import Callable
from pathlib import Path

import pillow_heif
import pytest
from click.testing import CliRunner
from PIL import Image

from claims_crew.cli import main
from claims_crew.documents.limits import MAX_PIXELS, AttachmentError, ClaimBudget
from claims_crew.documents.read import kind_of, read_attachment
from claims_crew.review.page_image import MAX_SIDE, page_png
from claims_crew.store import Store
from tests.support.attachments import HEIC_CLAIM, HEIC_ESTIMATE, INBOX
from tests.support.crew import script_any_claim_run, table_row
from tests.support.ocr import needs_tesseract
from tests.support.provider import sample_copy

SAMPLE = INBOX / HEIC_ESTIMATE
# The SHA-256 of the sample's decoded RGB pixels.
SAMPLE_PIXELS = "f4a3f48ab4155536b194b4914b84ba8ef632d3422947b7fd1c4948a73a1dfbad"


def _heic(image: Image.Image) -> bytes:
    out = io.BytesIO()
    pillow_heif.from_pillow(image.convert("RGB")).save(out, quality=60)
    return out.getvalue()


def _declaring(data: bytes, width: int, height: int) -> bytes:
    """The HEIC with the size its image spatial extent ('ispe') box declares changed: the
    size a reader learns from the header, before it decodes anything."""
    out = bytearray(data)
    at = out.find(b"ispe")
    assert at > 0 and out.find(b"ispe", at + 4) < 0  # one image, one extent
    struct.pack_into(">II", out, at + 8, width, height)
    return bytes(out)


def _refused(name: str, data: bytes) -> AttachmentError:
    with pytest.raises(AttachmentError) as caught:
        read_attachment(name, data, ClaimBudget())
    assert name in str(caught.value)
    return caught.value


@needs_tesseract
@pytest.mark.slow
def test_the_sample_heic_estimate_is_read_by_ocr() -> None:
    data = SAMPLE.read_bytes()
    assert data[4:12] == b"ftypheic"
    record = read_attachment(HEIC_ESTIMATE, data, ClaimBudget())
    [page] = record.pages
    assert (record.kind, page.source, record.problem) == ("image", "ocr", None)
    assert "Estimate total: 970.00" in page.text
    assert "stone thrown up from a gravel lorry" in " ".join(page.text.split())
    assert page.confidence is not None and page.confidence > 0.8


def test_the_sample_decodes_to_the_pixels_it_was_made_with() -> None:
    # HEVC is lossy, and another encoder build could write other bytes: the decoded pixels are
    # what OCR reads, so they are what is pinned (the bytes are checked by --check in CI).
    with Image.open(SAMPLE) as image:
        assert image.format == "HEIF" and image.size == (1812, 1228)
        digest = hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()
    assert digest == SAMPLE_PIXELS


def test_a_heic_declaring_too_many_pixels_is_refused_before_it_is_decoded() -> None:
    small = _heic(Image.new("RGB", (64, 64), "white"))
    error = _refused("photo.heic", _declaring(small, 9000, 8000))
    assert error.code == "too_large" and f"the cap is {MAX_PIXELS:,} pixels" in str(error)


@pytest.mark.parametrize(
    ("cut", "shown"),
    [
        (lambda data: data[:40], "or HEIC image that can be opened"),
        (lambda data: data[: len(data) // 2], "cannot be decoded"),
    ],
    ids=["header-only", "truncated"],
)
def test_a_broken_heic_is_refused_as_unsupported_type(
    cut: Callable[[bytes], bytes], shown: str
) -> None:
    broken = cut(SAMPLE.read_bytes())
    assert kind_of("photo.heic", broken) == "image"  # told a HEIC by its brand
    error = _refused("photo.heic", broken)
    assert error.code == "unsupported_type" and shown in str(error)


def test_the_review_page_draws_a_heic_photo(tmp_path: Path) -> None:
    photo = tmp_path / HEIC_ESTIMATE
    photo.write_bytes(SAMPLE.read_bytes())
    sha = hashlib.sha256(photo.read_bytes()).hexdigest()
    with Image.open(io.BytesIO(page_png(photo, sha, 1))) as shown:
        # Drawn from the decoded photo (1,812 × 1,228), made no wider than the page shows.
        assert shown.format == "PNG" and shown.width == MAX_SIDE
        assert abs(shown.height - 1228 * MAX_SIDE / 1812) <= 1


@needs_tesseract
@pytest.mark.slow
def test_a_heic_pixel_bomb_is_refused_while_the_rest_of_the_inbox_is_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_any_claim_run(monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    claim = sample_copy(inbox, HEIC_CLAIM, HEIC_ESTIMATE)
    # 72 million pixels declared by a file of a few kilobytes.
    bomb = _declaring(_heic(Image.new("RGB", (64, 64), "white")), 9000, 8000)
    (inbox / "X-bomb.heic").write_bytes(bomb)
    fields = json.loads(claim.read_text(encoding="utf-8"))
    bad = {**fields, "claim_id": "X-heic-bomb", "attachments": ["X-bomb.heic"]}
    (inbox / "X-heic-bomb.json").write_text(json.dumps(bad), encoding="utf-8")
    result = CliRunner().invoke(main, ["run", "--inbox", str(inbox)], env={"COLUMNS": "400"})
    assert result.exit_code == 1, result.output
    row = table_row(result.output, "X-heic-bomb.json")
    assert "bad claim file (too_large)" in row and "X-bomb.heic" in row, row
    record = Store().claim_record("C-2004")
    assert record is not None and record.status == "reviewed"
