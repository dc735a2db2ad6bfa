"""One page of a claim's attachment as a PNG, for a reviewer to look at beside a quote.

The page is drawn from the file itself, and only while the file is the one intake read: its
SHA-256 must still be the one intake stored, else the image is refused (`changed`), because a
page that differs from the text the facts were checked against would show a reviewer something
no check ever saw. That also bounds what is rendered here: bytes that intake's reader already
opened within its own caps and time limit (but reading a page's text does not draw it).

A PDF page is rendered by pdfium (pypdfium2) in a child process with a memory cap and a time limit
(documents/pdf/rendering.py), an image decoded by Pillow (a TIFF's pages are its frames), opened as
intake opens it (documents/images/opener.py). Both under caps: the file's bytes, the page's pixels
before anything is decoded (a decompression bomb is refused from its header), and the size drawn (at
most MAX_SIDE pixels on the longer side, about 150 dpi for an A4 page). A page that needs more
memory or time to draw than PAGE_IMAGE_LIMITS is too_large (413), with the limit it went over: a
page of a few kilobytes can ask pdfium for gigabytes, and intake's text reader never draws it.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Literal

from PIL import Image, ImageSequence, UnidentifiedImageError

from claims_crew.documents.images.opener import ImageTooLarge, open_image, shrunk
from claims_crew.documents.kept import read_plain_file
from claims_crew.documents.limits import (
    MAX_PIXELS,
    PAGE_IMAGE_SECONDS,
    RENDER_MEMORY_BYTES,
    RenderLimits,
)
from claims_crew.documents.pdf.rendering import PdfRenderer, RenderError
from claims_crew.documents.record import PAGED_KINDS
from claims_crew.errors import KeptFileError
from claims_crew.store import Store

PageImageProblem = Literal["changed", "missing", "no_such_page", "unsupported_type", "too_large"]

MAX_FILE_BYTES = 32 << 20
# The longer side of the PNG sent: an A4 page at about 150 dpi, enough to read a form.
MAX_SIDE = 1754
# A PDF page larger than this (in points, 1/72 inch) is no page of a document: 5 m a side.
MAX_PDF_POINTS = 14_400
# What drawing one page image may take (documents/limits.py says why these numbers).
PAGE_IMAGE_LIMITS = RenderLimits(memory_bytes=RENDER_MEMORY_BYTES, seconds=PAGE_IMAGE_SECONDS)


class PageImageError(Exception):
    """Why a page image is not given, in one word (`code`) and a sentence."""

    def __init__(self, code: PageImageProblem, message: str) -> None:
        super().__init__(message)
        self.code: PageImageProblem = code


def page_png(path: Path, expected_sha256: str, page: int) -> bytes:
    """Page `page` (1-based) of the file at `path`, as PNG bytes, if the file's SHA-256 is still
    `expected_sha256`; else a PageImageError saying why not."""
    data = _read(path)
    if hashlib.sha256(data).hexdigest() != expected_sha256.lower():
        raise PageImageError(
            "changed", f"{path.name} is not the file intake read (its SHA-256 differs)"
        )
    if page < 1:
        raise PageImageError("no_such_page", f"{path.name} has no page {page}")
    read = _pdf_page if data[:5] == b"%PDF-" else _image_page
    image = read(data, page, path.name)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _read(path: Path) -> bytes:
    """The file's bytes, at most MAX_FILE_BYTES: opened without following a link or blocking,
    and read only if it is a regular file (a FIFO in its place would hold the request for ever)."""
    try:
        return read_plain_file(path, MAX_FILE_BYTES)
    except KeptFileError as exc:
        code: PageImageProblem = "too_large" if exc.code == "too_large" else "missing"
        raise PageImageError(code, f"{path.name}: {exc.code.replace('_', ' ')}") from exc


def _pdf_page(data: bytes, page: int, name: str) -> Image.Image:
    """The page drawn by a child of its own (documents/pdf/rendering.py): no lock is held while it
    draws, and a page over PAGE_IMAGE_LIMITS is too_large, naming the limit."""
    try:
        with PdfRenderer(name, data, PAGE_IMAGE_LIMITS) as renderer:
            if page > len(renderer.sizes):
                raise PageImageError(
                    "no_such_page", f"{name} has {len(renderer.sizes)} page(s), not {page}"
                )
            width, height = renderer.sizes[page - 1]
            if not 0 < max(width, height) <= MAX_PDF_POINTS:
                raise PageImageError("too_large", f"{name}: page {page} is {width:g}x{height:g} pt")
            scale = min(MAX_SIDE / max(width, height), 150 / 72)
            return renderer.draw(page, scale, grey=False)
    except RenderError as exc:
        code: PageImageProblem = "unsupported_type" if exc.code == "unreadable" else "too_large"
        raise PageImageError(code, str(exc)) from exc


def _image_page(data: bytes, page: int, name: str) -> Image.Image:
    # An iPhone's HEIC photo is drawn as intake read it: both open it with the one opener.
    try:
        with open_image(data, MAX_PIXELS) as image:
            frames = getattr(image, "n_frames", 1)
            if page > frames:
                raise PageImageError("no_such_page", f"{name} has {frames} page(s), not {page}")
            frame = ImageSequence.Iterator(image)[page - 1]
            if frame.width * frame.height > MAX_PIXELS:  # a later frame may be larger
                raise PageImageError("too_large", f"{name}: page {page} is over the pixel cap")
            shown = frame.convert("RGB")
    except ImageTooLarge as exc:
        raise PageImageError("too_large", f"{name}: {exc}") from exc
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError) as exc:
        raise PageImageError("unsupported_type", f"{name}: not a PDF or an image ({exc})") from exc
    return shrunk(shown, MAX_SIDE)


def with_originals(store: Store, claim_id: str, sha256: str | None) -> dict[str, int]:
    """The claim's PDF and image documents whose original intake kept, those the page can show
    a page of (a claim read before originals were kept has none), each with its number in the
    page image's address: its place among the documents intake read."""
    kept = (store.kept_records(claim_id, sha256) or {}) if sha256 else {}
    return {
        name: index
        for index, (name, doc) in enumerate(kept.items())
        if doc.kind in PAGED_KINDS and doc.kept_at
    }


def attachment_page(store: Store, claim_id: str, index: int, page: int) -> bytes:
    """Page `page` of the claim's document number `index` (0-based, in the order intake read
    them: the claim file's attachments, each e-mail followed by the files it carries) as PNG:
    the original intake kept, checked against the SHA-256 intake stored with the text
    of record. The file is found from the store alone; nothing of the request names a path.

    Raises NotFound for an unknown escalation, PageImageError for the rest.
    """
    store.escalation(claim_id)  # NotFound: no such escalation to look at
    record = store.claim_record(claim_id)
    sha = record.claim_sha256 if record is not None else None
    documents = (store.kept_records(claim_id, sha) or {}) if sha else {}
    names = list(documents)
    if not 0 <= index < len(names):
        raise PageImageError("missing", f"claim {claim_id} has no attachment {index}")
    name = names[index]
    kept = documents.get(name)
    if kept is None or kept.kind not in PAGED_KINDS:
        raise PageImageError("unsupported_type", f"{name} has no pages to show")
    if not kept.kept_at:
        raise PageImageError("missing", f"{name}: its original was not kept at intake")
    return page_png(Path(kept.kept_at), kept.sha256, page)
