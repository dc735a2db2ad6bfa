"""Build the sample policy PDFs in ``policies/`` from the plain-text sources in ``policies/src/``.

Endorsements are built the same way, from ``policies/src/endorsements/*.txt`` to
``policies/endorsements/*.pdf``.

The crew reads real PDFs, so the samples must be real PDFs, but they must also be reproducible:
this script writes them by hand (no PDF library) and byte-for-byte deterministically, so a PDF's
SHA-256 changes only when its source text does.

Source markup, one paragraph per line:

* the first line is the policy title (drawn large; it is also repeated in every page footer);
* a line starting with ``# `` is a heading, drawn in Helvetica-Bold without the marker;
* a blank line is a small vertical gap;
* any other line is body text in Helvetica, word-wrapped with a hanging indent.

Usage (from the repository root)::

    python scripts/build_policies.py          # build every policies/src/*.txt and endorsement
    python scripts/build_policies.py --check  # exit 1 if any built PDF is stale (for CI)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC_DIR = ROOT / "policies" / "src"
OUT_DIR = ROOT / "policies"
# Each source folder and the folder its PDFs go to: the forms, then their endorsements.
BUILDS: tuple[tuple[Path, Path], ...] = (
    (SRC_DIR, OUT_DIR),
    (SRC_DIR / "endorsements", OUT_DIR / "endorsements"),
)

# US Letter, in points.
PAGE_WIDTH = 612
PAGE_HEIGHT = 792
MARGIN = 72
TEXT_WIDTH = PAGE_WIDTH - 2 * MARGIN

BODY_SIZE = 10.0
LEADING = 13.0
TITLE_SIZE = 14.0
TITLE_LEADING = 20.0
FOOTER_SIZE = 8.0
FOOTER_Y = 40.0
HANGING_INDENT = 12.0
BLANK_GAP = 6.0
HEADING_GAP = 4.0  # extra space above a heading, on top of any blank-line gap

REGULAR = "Helvetica"
BOLD = "Helvetica-Bold"
FONT_RESOURCE = {REGULAR: "F1", BOLD: "F2"}

# Advance widths (1/1000 em) from the Adobe Core 14 AFM files, for codes 32-126 of
# WinAnsiEncoding (so code 39 is quotesingle and 96 is grave, not the StandardEncoding quotes).
_ASCII_WIDTHS: dict[str, tuple[int, ...]] = {
    REGULAR: (
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
        1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
        333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
        556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
    ),
    BOLD: (
        278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
        975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
        333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
        611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
    ),
}  # fmt: skip

# The non-ASCII WinAnsi characters the sample texts use.
_EXTRA_WIDTHS: dict[str, dict[str, int]] = {
    REGULAR: {
        "\u2013": 556, "\u2014": 1000, "\u2018": 222, "\u2019": 222, "\u201c": 333,
        "\u201d": 333, "\u2022": 350, "\u00b7": 278, "\u00a7": 556, "\u20ac": 556,
        "\u00a3": 556, "\u2026": 1000, "\u00a0": 278, "\u00e9": 556,
    },
    BOLD: {
        "\u2013": 556, "\u2014": 1000, "\u2018": 278, "\u2019": 278, "\u201c": 500,
        "\u201d": 500, "\u2022": 350, "\u00b7": 278, "\u00a7": 556, "\u20ac": 556,
        "\u00a3": 556, "\u2026": 1000, "\u00a0": 278, "\u00e9": 556,
    },
}  # fmt: skip

FALLBACK_WIDTH = 556  # roughly the average lowercase width; only for characters not listed


def _width_table(font: str) -> dict[str, int]:
    table = {chr(32 + i): w for i, w in enumerate(_ASCII_WIDTHS[font])}
    table.update(_EXTRA_WIDTHS[font])
    return table


WIDTHS: dict[str, dict[str, int]] = {font: _width_table(font) for font in (REGULAR, BOLD)}


def text_width(text: str, font: str, size: float) -> float:
    table = WIDTHS[font]
    return sum(table.get(ch, FALLBACK_WIDTH) for ch in text) * size / 1000.0


@dataclass(frozen=True)
class Line:
    """One printed line of text, positioned on its page."""

    text: str
    font: str
    size: float
    x: float
    y: float


def wrap(text: str, font: str, size: float, width: float, indent: float) -> list[str]:
    """Greedy word wrap; continuation lines have ``indent`` less room (the hanging indent)."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        room = width - (indent if lines else 0.0)
        candidate = f"{current} {word}" if current else word
        if not current or text_width(candidate, font, size) <= room:
            current = candidate
            continue
        lines.append(current)
        current = word
    if current or not lines:
        lines.append(current)
    return lines


def layout(source: str) -> tuple[str, list[list[Line]]]:
    """Place every source line on pages; return the title and the lines of each page."""
    raw = source.splitlines()
    if not raw or not raw[0].strip():
        raise ValueError("the first line must be the policy title")
    title = raw[0].removeprefix("# ").strip()

    top = float(PAGE_HEIGHT - MARGIN)
    pages: list[list[Line]] = [[]]
    # y is the baseline of the previous line; the first line of a page sits one leading below top.
    y = top
    pending_gap = 0.0

    def new_page() -> None:
        nonlocal y, pending_gap
        pages.append([])
        y = top
        pending_gap = 0.0  # gaps never carry over to the top of a page

    title_lines = wrap(title, BOLD, TITLE_SIZE, TEXT_WIDTH, 0.0)
    for text in title_lines:
        y -= TITLE_LEADING
        pages[0].append(Line(text, BOLD, TITLE_SIZE, MARGIN, y))
    pending_gap = BLANK_GAP

    for number, source_line in enumerate(raw[1:], start=2):
        stripped = source_line.strip()
        if not stripped:
            if pages[-1]:
                pending_gap = max(pending_gap, BLANK_GAP)
            continue
        try:
            stripped.encode("cp1252")
        except UnicodeEncodeError as exc:
            raise ValueError(f"line {number}: not representable in WinAnsi: {exc}") from exc

        heading = stripped.startswith("# ")
        font = BOLD if heading else REGULAR
        text = stripped[2:].strip() if heading else stripped
        wrapped = wrap(text, font, BODY_SIZE, TEXT_WIDTH, HANGING_INDENT)
        gap = pending_gap + (HEADING_GAP if heading and pages[-1] else 0.0)
        # Keep a heading together with the first line that follows it.
        needed = len(wrapped) + (1 if heading else 0)
        if pages[-1] and y - gap - needed * LEADING < MARGIN:
            new_page()
            gap = 0.0
        y -= gap
        pending_gap = 0.0
        for i, part in enumerate(wrapped):
            if y - LEADING < MARGIN:
                new_page()
            y -= LEADING
            x = MARGIN + (HANGING_INDENT if i else 0.0)
            pages[-1].append(Line(part, font, BODY_SIZE, x, y))

    if not pages[-1]:
        pages.pop()
    return title, pages


def pdf_string(text: str) -> bytes:
    """A PDF literal string in WinAnsi (cp1252), kept ASCII-only by octal-escaping other bytes."""
    out = bytearray(b"(")
    for byte in text.encode("cp1252"):
        if byte in b"\\()":
            out += b"\\" + bytes([byte])
        elif 32 <= byte < 127:
            out.append(byte)
        else:
            out += b"\\%03o" % byte
    out += b")"
    return bytes(out)


def num(value: float) -> bytes:
    """Format a coordinate without float noise, so output is identical across platforms."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return (text if text not in ("", "-0") else "0").encode("ascii")


def content_stream(lines: Sequence[Line], footer: str) -> bytes:
    """One BT block per page; each printed line gets its own Td, as in ordinary PDFs."""
    footer_x = (PAGE_WIDTH - text_width(footer, REGULAR, FOOTER_SIZE)) / 2
    placed = [*lines, Line(footer, REGULAR, FOOTER_SIZE, footer_x, FOOTER_Y)]
    ops = [b"BT"]
    font_state: tuple[str, float] | None = None
    x = y = 0.0
    for line in placed:
        if (line.font, line.size) != font_state:
            font_state = (line.font, line.size)
            ops.append(b"/%s %s Tf" % (FONT_RESOURCE[line.font].encode("ascii"), num(line.size)))
        # Td is relative to the start of the previous line.
        ops.append(b"%s %s Td" % (num(line.x - x), num(line.y - y)))
        ops.append(pdf_string(line.text) + b" Tj")
        x, y = line.x, line.y
    ops.append(b"ET")
    return b"\n".join(ops) + b"\n"


def utf16_text(text: str) -> bytes:
    """A PDF text string (for document info) as UTF-16BE hex, so any character survives."""
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode("ascii") + b">"


def build_pdf(source: str) -> bytes:
    """Render a policy source text to PDF bytes. Same input, same bytes."""
    title, pages = layout(source)
    total = len(pages)

    # Object numbers: 1 catalog, 2 pages tree, 3-4 fonts, 5 info, then a page and its content
    # stream per page. Fixed numbering keeps the output stable.
    first_page = 6
    page_ids = [first_page + 2 * i for i in range(total)]
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % pid for pid in page_ids), total),
    ]
    for font in (REGULAR, BOLD):
        objects.append(
            b"<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding >>"
            % font.encode("ascii")
        )
    objects.append(b"<< /Title %s /Producer (claims-crew build_policies.py) >>" % utf16_text(title))

    for number, lines in enumerate(pages, start=1):
        footer = f"{title} \u00b7 Page {number} of {total}"
        stream = content_stream(lines, footer)
        content_id = first_page + 2 * (number - 1) + 1
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] "
            b"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>"
            % (PAGE_WIDTH, PAGE_HEIGHT, content_id)
        )
        objects.append(b"<< /Length %d >>\nstream\n%sendstream" % (len(stream), stream))

    # The binary comment after the header tells transfer tools the file is not plain text.
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for obj_id, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (obj_id, body)

    xref_at = len(out)
    # Each xref entry is exactly 20 bytes, including the two-byte " \n" end of line.
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\n" % (len(objects) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--check",
        action="store_true",
        help="build nothing; exit 1 if any PDF is missing or differs from its source",
    )
    args = parser.parse_args(argv)

    builds = [
        (source, out / f"{source.stem}.pdf")
        for src, out in BUILDS
        for source in sorted(src.glob("*.txt"))
    ]
    if not builds:
        print(f"no sources found in {SRC_DIR}", file=sys.stderr)
        return 1

    stale: list[Path] = []
    for source, target in builds:
        data = build_pdf(source.read_text(encoding="utf-8"))
        current = target.read_bytes() if target.exists() else None
        if current == data:
            continue
        if args.check:
            stale.append(target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            print(f"built {target.relative_to(ROOT)}")

    for target in stale:
        print(f"stale: {target.relative_to(ROOT)} (run scripts/build_policies.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
