"""The PDF letter: the HTML of `letter.pdf.html.j2` laid out by fpdf2, in pure Python.

fpdf2 writes real text (a font and its glyphs, not pictures of words), so what the letter says
can be read back from the PDF, and a clause quoted in it can be found there. Its built-in
fonts cover Latin-1 only; a claimant's name or a policy's wording may hold any character, so
the letter is set in a Unicode TrueType font: the file CLAIMS_CREW_LETTER_FONT names, else
DejaVu Sans as Debian's fonts-dejavu-core installs it. With neither, the built-in Helvetica
is used, each character outside Latin-1 is printed as "?", and the letter says so on its last
line: never a silent gap.
"""

from __future__ import annotations

import os
from pathlib import Path

from fpdf import FPDF

FONT_ENV = "CLAIMS_CREW_LETTER_FONT"
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
# Style → DejaVu Sans file; a font named by CLAIMS_CREW_LETTER_FONT serves every style.
DEJAVU_STYLES = {
    "": "DejaVuSans.ttf",
    "B": "DejaVuSans-Bold.ttf",
    "I": "DejaVuSans-Oblique.ttf",
    "BI": "DejaVuSans-BoldOblique.ttf",
}
FAMILY = "letter"
FALLBACK_NOTE = (
    "Some characters of this letter cannot be shown in this PDF and are printed as '?'; "
    "the HTML letter shows them all."
)


def unicode_font() -> dict[str, Path] | None:
    """Style → TrueType file of the letter's font; None when no Unicode font is found."""
    named = os.environ.get(FONT_ENV)
    if named:
        return dict.fromkeys(DEJAVU_STYLES, Path(named))
    files = {style: DEJAVU / name for style, name in DEJAVU_STYLES.items()}
    return files if all(f.is_file() for f in files.values()) else None


def latin1(html: str) -> tuple[str, bool]:
    """The text with each character outside Latin-1 as '?', and whether any was."""
    kept = html.encode("latin-1", errors="replace").decode("latin-1")
    return kept, kept != html


def pdf_bytes(html: str, title: str) -> bytes:
    """The letter's PDF from its HTML."""
    pdf = FPDF(format="A4")
    pdf.set_title(title)
    pdf.set_creator("claims-crew")
    fonts = unicode_font()
    if fonts is None:
        family = "helvetica"
        html, replaced = latin1(html)
        if replaced:
            html += f"<p><i>{FALLBACK_NOTE}</i></p>"
    else:
        family = FAMILY
        for style, path in fonts.items():
            pdf.add_font(FAMILY, style, str(path))
    pdf.add_page()
    pdf.set_font(family, size=11)
    pdf.write_html(html, font_family=family)
    return bytes(pdf.output())
