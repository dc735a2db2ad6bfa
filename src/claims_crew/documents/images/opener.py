"""The one place a claim's image bytes are handed to Pillow, for every part that opens one.

Three parts open images: intake's reader (images/pages.py: every frame, then OCR), the intake
agent's photos (crew/images.py) and the review page's page image (review/page_image.py). They
open them here, so all three read the same formats, HEIC and HEIF (an iPhone's default) included:
pi-heif's Pillow plugin is registered when this module is imported, whichever part imports it
first, so a process that reads a claim from the store alone (a worker, the review page) draws a
HEIC photo as intake read it.

Opening reads the header alone; nothing is decoded until the pixels are asked for. pi-heif reads
a HEIC's size from its header as Pillow's own formats do, so a cap on the pixels is checked here
before libheif or a codec decodes anything.
"""

from __future__ import annotations

import contextlib
import io
import warnings

from pi_heif import register_heif_opener
from PIL import Image

register_heif_opener()


class ImageTooLarge(Exception):
    """An image whose first frame declares more pixels than its cap; nothing of it was decoded."""

    def __init__(self, width: int, height: int, cap: int) -> None:
        super().__init__(f"{width}x{height} pixels, over the cap of {cap:,}")
        self.width = width
        self.height = height
        self.cap = cap


def open_image(
    data: bytes, max_pixels: int | None = None, *, bomb_warning_refused: bool = False
) -> Image.Image:
    """The image in `data` (PNG, JPEG, TIFF, HEIC, any format Pillow or pi-heif reads), its
    header read and nothing decoded; the caller closes it (it is a context manager).

    Refused with ImageTooLarge where its first frame is over `max_pixels`. Pillow's own errors
    pass through for the caller to name: UnidentifiedImageError, OSError, ValueError and
    DecompressionBombError (over twice Pillow's MAX_IMAGE_PIXELS); with `bomb_warning_refused`,
    Pillow's DecompressionBombWarning (over its MAX_IMAGE_PIXELS) is raised as an error too.
    """
    # Only where asked: changing the warning filters is not thread-safe, and the review page
    # opens images in a server's threads.
    refusing = warnings.catch_warnings() if bomb_warning_refused else contextlib.nullcontext()
    with refusing:
        if bomb_warning_refused:
            warnings.simplefilter("error", Image.DecompressionBombWarning)
        image = Image.open(io.BytesIO(data))
    if max_pixels is not None and image.width * image.height > max_pixels:
        width, height = image.size
        image.close()
        raise ImageTooLarge(width, height, max_pixels)
    return image


def shrunk(image: Image.Image, max_side: int) -> Image.Image:
    """`image` itself, scaled down in place to at most `max_side` pixels on its longer side (its
    shape kept; a smaller image is left as it is)."""
    image.thumbnail((max_side, max_side))
    return image
