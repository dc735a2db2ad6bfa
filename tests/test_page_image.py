"""A page of an attachment as a PNG (review/page_image.py): drawn from the very file intake read,
under caps, and refused with a reason otherwise."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from claims_crew.documents.limits import MAX_PIXELS
from claims_crew.review.page_image import MAX_SIDE, PageImageError, page_png
from tests.support.paths import SAMPLE_POLICIES, shared_pdf


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image


def problem(path: Path, expected: str, page: int = 1) -> str:
    with pytest.raises(PageImageError) as caught:
        page_png(path, expected, page)
    return caught.value.code


def test_a_page_of_a_real_policy_pdf_is_drawn_within_the_cap() -> None:
    path = shared_pdf("barclays_travel_uk.pdf")
    image = png(page_png(path, sha(path), 2))
    assert 0 < max(image.size) <= MAX_SIDE
    # A page of text: mostly white, but not blank.
    grey = image.convert("L")
    assert grey.getextrema()[0] < 100 and grey.getextrema()[1] > 200


def test_a_pdf_page_past_the_last_is_refused() -> None:
    path = SAMPLE_POLICIES / "harbour_home.pdf"
    assert problem(path, sha(path), 999) == "no_such_page"
    assert problem(path, sha(path), 0) == "no_such_page"


def test_a_file_changed_since_intake_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes((SAMPLE_POLICIES / "harbour_home.pdf").read_bytes())
    stored = sha(path)
    path.write_bytes(path.read_bytes() + b"\n% a line added after intake\n")
    assert problem(path, stored) == "changed"


def test_a_photo_and_the_pages_of_a_tiff(tmp_path: Path) -> None:
    first = Image.new("RGB", (3000, 1000), "white")
    ImageDraw.Draw(first).rectangle((100, 100, 900, 900), fill="black")
    second = Image.new("RGB", (400, 300), "red")
    tiff = tmp_path / "scan.tiff"
    first.save(tiff, save_all=True, append_images=[second])
    assert png(page_png(tiff, sha(tiff), 1)).size == (MAX_SIDE, round(MAX_SIDE / 3))
    page_two = png(page_png(tiff, sha(tiff), 2))
    assert page_two.size == (400, 300) and page_two.convert("RGB").getpixel((5, 5)) == (255, 0, 0)
    assert problem(tiff, sha(tiff), 3) == "no_such_page"


def test_a_decompression_bomb_is_refused_from_its_header(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.png"
    Image.new("1", (9000, MAX_PIXELS // 9000 + 1)).save(bomb)  # just over the cap, a few KB
    assert bomb.stat().st_size < 100_000
    assert problem(bomb, sha(bomb)) == "too_large"


def test_what_is_neither_a_pdf_nor_an_image_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a picture", encoding="utf-8")
    assert problem(text, sha(text)) == "unsupported_type"


def test_a_fifo_or_a_missing_file_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "photo.png"
    os.mkfifo(fifo)
    assert problem(fifo, "0" * 64) == "missing"
    assert problem(tmp_path / "gone.png", "0" * 64) == "missing"


def test_a_link_in_place_of_the_kept_original_is_not_followed(tmp_path: Path) -> None:
    photo = tmp_path / "elsewhere.png"
    Image.new("RGB", (40, 30), "white").save(photo)
    link = tmp_path / "photo.png"
    link.symlink_to(photo)
    # The bytes behind the link would match: only not following it refuses them.
    assert problem(link, sha(photo)) == "missing"
    assert png(page_png(photo, sha(photo), 1)).size == (40, 30)
