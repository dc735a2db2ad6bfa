"""Benchmark: how well and how fast the OCR engine reads clean 300-dpi pages.

For each page it renders the page at 300 dpi with pdfium (as a scanner would give it), reads it
with documents/images/ocr.py (Tesseract) and compares the text with the page's own text layer,
which is the reference:

- the repo's scanned samples: the police report of C-1050 and the repair estimate of C-2002, as
  scripts/make_attachment_samples.py makes them, against the text they were typeset from;
- pages of the real policies in ../shared/policies/ (skipped with a note when the folder is
  absent), against their text layers: the first --pages pages of each.

Character accuracy is 1 - errors / reference length, on both texts with whitespace collapsed
and typographic quotes and dashes made plain (a text layer's curly apostrophe and OCR's straight
one are the same letter to a reader). Errors are counted from difflib's alignment: each replaced
span counts its longer side, each inserted or deleted span its length, so the figure can only
understate the accuracy. Word recall is the share of the reference's words read, in any order:
a page of columns that the text layer and OCR take in different orders loses character accuracy
for the order alone. Seconds per page is the OCR call alone (not the render), on the cores
this process may use (printed). A page whose text layer has fewer than 200 letters (a cover or
a scanned page) is skipped: it has no reference to compare with.

Run it from the project root:

    uv run python bench/ocr.py                 # every real policy, 2 pages each
    uv run python bench/ocr.py --pages 5
    uv run python bench/ocr.py --small         # the scanned samples and one sample page: CI's
                                               # check, exit 1 if OCR is missing or reads badly
"""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import statistics
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pypdfium2
from PIL import Image
from pypdf import PdfReader

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import make_attachment_samples as samples  # noqa: E402

from claims_crew.documents.images.ocr import ocr_unavailable, read_image  # noqa: E402

SHARED_POLICIES = ROOT.parent / "shared" / "policies"
DPI = 300
MIN_LETTERS = 200
# --small fails below this: the samples are clean renders, so less means the engine is broken.
SMALL_FLOOR = 0.95
_PLAIN = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "•": "-"})


@dataclass
class Read:
    name: str
    accuracy: float
    words: float
    seconds: float
    characters: int


def plain(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).translate(_PLAIN).split())


def accuracy(reference: str, read: str) -> float:
    want, got = plain(reference), plain(read)
    errors = 0
    matcher = difflib.SequenceMatcher(None, want, got, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op != "equal":
            errors += max(a2 - a1, b2 - b1)
    return max(0.0, 1 - errors / max(len(want), 1))


def word_recall(reference: str, read: str) -> float:
    """The share of the reference's words that the read text holds, in any order: where the two
    take a page's columns in different orders, character accuracy counts that as errors."""
    want, got = Counter(plain(reference).split()), Counter(plain(read).split())
    return sum((want & got).values()) / max(sum(want.values()), 1)


def timed_read(name: str, image: Image.Image, reference: str) -> Read:
    started = time.perf_counter()
    page = read_image(image)
    seconds = time.perf_counter() - started
    return Read(
        name,
        accuracy(reference, page.text),
        word_recall(reference, page.text),
        seconds,
        len(plain(reference)),
    )


def rendered(pdf: bytes | Path, index: int) -> Image.Image:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return document[index].render(scale=DPI / 72, grayscale=True).to_pil()
    finally:
        document.close()


def sample_pages() -> Iterator[Read]:
    """The scanned samples, read as the claim reader reads them, against their typeset text."""
    import io

    build = samples._build_pdf()
    police = build(samples.POLICE_REPORT)
    scan = rendered(samples.scanned(build, samples.POLICE_REPORT), 0)
    yield timed_read("C-1050 police report (scan)", scan, _layer(police, 0))
    estimate = build(samples.REPAIR_ESTIMATE)
    photo = Image.open(io.BytesIO(samples.photographed(build, samples.REPAIR_ESTIMATE)))
    # The photo holds the top half of the page: the estimate without the page's footer.
    reference = "\n".join(_layer(estimate, 0).splitlines()[:-1])
    yield timed_read("C-2002 estimate (photo)", photo, reference)


def _layer(pdf: bytes | Path, index: int) -> str:
    import io

    source = io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf
    return PdfReader(source).pages[index].extract_text() or ""


def policy_pages(paths: Sequence[Path], pages: int) -> Iterator[Read]:
    for path in paths:
        reader = PdfReader(path)
        taken = 0
        for index, page in enumerate(reader.pages):
            if taken == pages:
                break
            layer = page.extract_text() or ""
            if sum(ch.isalpha() for ch in layer) < MIN_LETTERS:
                continue
            taken += 1
            yield timed_read(f"{path.stem} p{index + 1}", rendered(path, index), layer)


def report(title: str, reads: list[Read]) -> None:
    if not reads:
        return
    print(f"\n{title}")
    print(f"  {'page':<44} {'chars':>7} {'words':>7}  {'OCR time':>8}")
    for r in reads:
        print(
            f"  {r.name:<44} {r.accuracy:7.2%} {r.words:7.2%}  {r.seconds:6.2f} s"
            f"  ({r.characters:,} chars)"
        )
    chars = sum(r.characters for r in reads)
    weighted = sum(r.accuracy * r.characters for r in reads) / chars
    words = sum(r.words * r.characters for r in reads) / chars
    median = statistics.median(r.seconds for r in reads)
    print(
        f"  {'all pages':<44} {weighted:7.2%} {words:7.2%}  {median:6.2f} s/page median, "
        f"{len(reads)} pages"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=2, help="pages of each real policy")
    parser.add_argument("--small", action="store_true", help="samples and one sample page")
    args = parser.parse_args(argv)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # font warnings on some real policies
    if (install := ocr_unavailable()) is not None:
        print(f"no OCR engine: {install}", file=sys.stderr)
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # documents/images/ocr.py gives tesseract one thread unless OMP_THREAD_LIMIT says otherwise.
    threads = os.environ.get("OMP_THREAD_LIMIT", "1")
    print(f"Tesseract at {DPI} dpi, {threads} thread(s) a page, {cores} core(s) available")
    scanned = list(sample_pages())
    report("Scanned samples (reference: the text they were typeset from)", scanned)
    if args.small:
        sample = list(policy_pages([ROOT / "policies" / "harbour_home.pdf"], 1))
        report("Sample policy, rendered (reference: its text layer)", sample)
        worst = min(r.accuracy for r in scanned + sample)
        if worst < SMALL_FLOOR:
            print(f"a clean page read at {worst:.2%}, under {SMALL_FLOOR:.0%}", file=sys.stderr)
            return 1
        return 0
    if not SHARED_POLICIES.is_dir():
        print(f"\n{SHARED_POLICIES} is absent: real policies skipped")
        return 0
    real = list(policy_pages(sorted(SHARED_POLICIES.glob("*.pdf")), args.pages))
    report(f"Real policies, {args.pages} page(s) each (reference: their text layers)", real)
    return 0


if __name__ == "__main__":
    sys.exit(main())
