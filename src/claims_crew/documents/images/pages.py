"""Photos and scans into text: each frame of an image opened with Pillow (opener.py, HEIC
included), checked against the claim's pixel budget before it is decoded, then read by OCR; a PDF
page drawn for OCR (pdf/pages.py) is read here too."""

from __future__ import annotations

from collections.abc import Iterator

from PIL import Image, ImageOps, UnidentifiedImageError

from claims_crew.documents.images.ocr import OcrError, read_image
from claims_crew.documents.images.opener import open_image
from claims_crew.documents.limits import AttachmentError, ClaimBudget
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


# The formats whose frames are pages (a fax or a scanner's multi-page TIFF). A GIF's or a
# WebP's frames are an animation (a logo that turns), and a HEIC's further images are
# thumbnails or bursts: their first frame is the picture.
_PAGED_FORMATS = frozenset({"TIFF"})
_FORMATS = "a PNG, JPEG, GIF, BMP, TIFF, WebP or HEIC image"


def image_frames(name: str, data: bytes, budget: ClaimBudget) -> Iterator[tuple[int, Image.Image]]:
    """Each page of an image (every page of a TIFF; the first frame of the others), upright,
    refused before decoding when it declares more pixels than the caps allow."""
    try:
        image = open_image(data, bomb_warning_refused=True)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise AttachmentError(
            "too_large", f"{name}: refused as a decompression bomb: {exc}"
        ) from exc
    except UnidentifiedImageError as exc:  # its message names only an in-memory buffer
        raise AttachmentError(
            "unsupported_type", f"{name}: not {_FORMATS} that can be opened"
        ) from exc
    except (OSError, ValueError) as exc:
        raise AttachmentError(
            "unsupported_type",
            f"{name}: not {_FORMATS} that can be opened: {exc}",
        ) from exc
    with image:
        count = getattr(image, "n_frames", 1) if image.format in _PAGED_FORMATS else 1
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
