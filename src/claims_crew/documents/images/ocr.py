"""Optical character recognition, offline: Debian's Tesseract through pytesseract.

Tesseract is a system package (`tesseract-ocr`, with its English model) that reads a page in a
child process; nothing is downloaded at run time. Where it is missing, `ocr_unavailable` says
the install line and callers carry on with what they could read without it (a scanned page is
then `needs_ocr`). Every line keeps Tesseract's own confidence, scaled to 0..1, so that a fact
quoted from a line the engine was unsure of can be shown as such.

CLAIMS_CREW_TESSERACT names another tesseract program (a build in /opt, or a path that does not
exist to see how a machine without it behaves).

Tesseract runs one thread per page unless OMP_THREAD_LIMIT says otherwise: its OpenMP threads
compete with the review's own work (the local model, other workers), and on the project's busy
two-core machine one thread read a page in under half the time two did (bench/ocr.py). The
limit is given to the tesseract child alone; the local model's threads are left as they are.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from claims_crew.settings import current

if TYPE_CHECKING:
    from PIL import Image

INSTALL_LINE = "apt-get install -y tesseract-ocr"
LANGUAGE = "eng"
# Page segmentation 3 (automatic, no orientation detection: no osd model needed) and the LSTM
# engine; a document page, not a single line or word.
_CONFIG = "--oem 1 --psm 3"


class OcrError(Exception):
    """The engine is missing (`needs_ocr`) or failed on this page (`ocr_failed`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class OcrLine(BaseModel):
    """One line as the engine read it, with its mean word confidence."""

    text: str
    confidence: float = Field(ge=0.0, le=1.0)


class OcrPage(BaseModel):
    """A page's text (lines joined by newlines, blocks by a blank line) and its confidence:
    the mean over its words, so a long line of sure words outweighs a short doubtful one."""

    text: str
    lines: list[OcrLine]
    confidence: float = Field(ge=0.0, le=1.0)


def tesseract_command() -> str:
    program: str = current().claims_crew_tesseract or "tesseract"
    return program


def ocr_unavailable() -> str | None:
    """None when the engine runs and knows English; otherwise the line that installs it."""
    found = shutil.which(tesseract_command())
    if found is None:
        return INSTALL_LINE
    languages = _languages(found)
    if languages is None:
        return INSTALL_LINE
    return None if LANGUAGE in languages else f"apt-get install -y tesseract-ocr-{LANGUAGE}"


@functools.lru_cache(maxsize=8)
def _languages(executable: str) -> frozenset[str] | None:
    """The languages the engine at `executable` knows (None: it would not say). Asked once per
    executable: it is asked before every scanned page and photo, and each answer is a process."""
    try:
        listed = subprocess.run(
            [executable, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return frozenset(line.strip() for line in (listed.stdout + listed.stderr).splitlines())


def read_image(image: Image.Image, timeout_s: float | None = None) -> OcrPage:
    """The text Tesseract reads on `image`, line by line with confidences.

    Raises OcrError: `needs_ocr` when the engine is not installed, `ocr_failed` when it fails or
    runs past `timeout_s` (its child is killed then).
    """
    # Imported here: pytesseract (and numpy with it) costs most of a second, and the policy
    # library and the config check reach this module without reading any image.
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = tesseract_command()
    # pytesseract starts tesseract with this module-level environment.
    pytesseract.pytesseract.environ = {"OMP_THREAD_LIMIT": "1", **os.environ}
    try:
        data = pytesseract.image_to_data(
            _as_rgb(image),
            lang=LANGUAGE,
            config=_CONFIG,
            output_type=pytesseract.Output.DICT,
            timeout=timeout_s or 0,
        )
    except pytesseract.TesseractNotFoundError as exc:
        raise OcrError("needs_ocr", f"no OCR engine: {INSTALL_LINE}") from exc
    except RuntimeError as exc:  # pytesseract's "Tesseract process timeout"
        raise OcrError("ocr_failed", f"OCR ran past {timeout_s or 0:g} s: {exc}") from exc
    except (pytesseract.TesseractError, subprocess.CalledProcessError, OSError, ValueError) as exc:
        raise OcrError("ocr_failed", f"OCR failed: {exc}") from exc
    except SystemExit as exc:
        # pytesseract exits the process when `tesseract --version` prints something it cannot
        # parse; one broken engine must fail this page, not end the batch.
        raise OcrError("ocr_failed", f"OCR failed: {exc}") from exc
    return page_of(data)


def _as_rgb(image: Image.Image) -> Image.Image:
    # Tesseract reads 1-bit, grey and RGB; palette, alpha and 16-bit modes are converted here.
    return image if image.mode in ("1", "L", "RGB") else image.convert("RGB")


def page_of(data: dict[str, Sequence[object]]) -> OcrPage:
    """Tesseract's word table (image_to_data) as lines with confidences; words it gave no
    confidence (-1: a block or line row, not a word) are left out."""
    words: dict[tuple[int, int, int], list[tuple[str, float]]] = defaultdict(list)
    for i, raw in enumerate(data["text"]):
        text = str(raw).strip()
        confidence = float(str(data["conf"][i]))
        if not text or confidence < 0:
            continue
        key = (
            int(str(data["block_num"][i])),
            int(str(data["par_num"][i])),
            int(str(data["line_num"][i])),
        )
        words[key].append((text, min(confidence, 100.0) / 100.0))
    lines: list[OcrLine] = []
    parts: list[str] = []
    previous_block: tuple[int, int] | None = None
    for key in sorted(words):
        found = words[key]
        line = OcrLine(
            text=" ".join(text for text, _ in found),
            confidence=sum(c for _, c in found) / len(found),
        )
        if previous_block is not None and key[:2] != previous_block:
            parts.append("")
        previous_block = key[:2]
        lines.append(line)
        parts.append(line.text)
    every = [c for found in words.values() for _, c in found]
    return OcrPage(
        text="\n".join(parts), lines=lines, confidence=sum(every) / len(every) if every else 0.0
    )
