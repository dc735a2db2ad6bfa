"""The PDF letter: the HTML of `letter.pdf.html.j2` laid out by fpdf2, in pure Python.

fpdf2 writes real text (a font and its glyphs, not pictures of words), so what the letter says
can be read back from the PDF, and a clause quoted in it can be found there. Its built-in
fonts cover Latin-1 only; a claimant's name or a policy's wording may hold any character, so
the letter is set in a Unicode TrueType font: the file CLAIMS_CREW_LETTER_FONT names, else
DejaVu Sans as Debian's fonts-dejavu-core installs it, else the built-in Helvetica.

No font has every character (DejaVu Sans has no Chinese, Japanese or emoji), and fpdf2 would
leave a gap for each one it lacks. So each character of the letter is looked up in the font's
own character map first: one the font cannot show is printed as "?", and the letter says so
on its last lines, naming each by its code point and Unicode name (which any font can show).
Right-to-left text needs a shaping engine fpdf2 does not have here: it is printed left to
right, in the order it is stored, and the letter says that too. Never a silent gap: the same
lines go back to the caller (PdfLetter.unshown), and the HTML letter shows everything.
"""

from __future__ import annotations

import html as html_text
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF

from claims_crew.settings import current

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
# The built-in fonts' characters: Latin-1.
LATIN1 = frozenset(range(256))
# How many unshown characters the note names one by one; the rest are counted.
MAX_NAMED = 20
RIGHT_TO_LEFT_NOTE = (
    "Right-to-left text in this letter is printed here from left to right, in the order it "
    "is stored; the HTML letter shows it as written."
)


@dataclass(frozen=True)
class PdfLetter:
    content: bytes
    # What the letter notes, on its last lines, that it could not show as written.
    unshown: tuple[str, ...] = ()


def unicode_font() -> dict[str, Path] | None:
    """Style → TrueType file of the letter's font; None when no Unicode font is found."""
    named = current().claims_crew_letter_font
    if named:
        return dict.fromkeys(DEJAVU_STYLES, Path(named))
    files = {style: DEJAVU / name for style, name in DEJAVU_STYLES.items()}
    return files if all(f.is_file() for f in files.values()) else None


def font_characters(pdf: FPDF, styles: Collection[str]) -> frozenset[int]:
    """The code points the letter's font has a glyph for in every style added to `pdf`: a
    character in bold text must be in the bold font as well as in the regular one."""
    found: frozenset[int] | None = None
    for style in styles:
        cmap = frozenset(getattr(pdf.fonts[f"{FAMILY}{style}"], "cmap", None) or {})
        found = cmap if found is None else found & cmap
    return found or frozenset()


def unshowable(html: str, characters: Collection[int]) -> list[str]:
    """The letter's characters the font has no glyph for, in code point order (white space
    needs none); character references are read as the characters they stand for."""
    text = html_text.unescape(html)
    return sorted({c for c in text if ord(c) not in characters and not c.isspace()})


def named(character: str) -> str:
    """A character as a note names it, in ASCII: U+4E2D CJK UNIFIED IDEOGRAPH-4E2D."""
    return f"U+{ord(character):04X} {unicodedata.name(character, 'UNNAMED CHARACTER')}"


def missing_note(missing: list[str]) -> str:
    listed = "; ".join(named(c) for c in missing[:MAX_NAMED])
    more = f"; and {len(missing) - MAX_NAMED} more" if len(missing) > MAX_NAMED else ""
    return (
        f"This PDF's font cannot show {len(missing)} character(s) of this letter; each is "
        f"printed as '?': {listed}{more}. The HTML letter shows them all."
    )


def has_right_to_left(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def pdf_letter(html: str, title: str) -> PdfLetter:
    """The letter's PDF from its HTML, and what it notes it could not show as written."""
    pdf = FPDF(format="A4")
    pdf.set_title(title)
    pdf.set_creator("claims-crew")
    fonts = unicode_font() or {}
    for style, path in fonts.items():
        pdf.add_font(FAMILY, style, str(path))
    family = FAMILY if fonts else "helvetica"
    characters = font_characters(pdf, fonts) if fonts else LATIN1
    missing = unshowable(html, characters)
    notes: list[str] = []
    if missing:
        gone = set(missing)
        html = "".join("?" if c in gone else c for c in html)
        notes.append(missing_note(missing))
    if has_right_to_left(html_text.unescape(html)):
        notes.append(RIGHT_TO_LEFT_NOTE)
    html += "".join(f"<p><i>{html_text.escape(note)}</i></p>" for note in notes)
    pdf.add_page()
    pdf.set_font(family, size=11)
    pdf.write_html(html, font_family=family)
    return PdfLetter(bytes(pdf.output()), tuple(notes))
