"""An endorsement's page texts as one stream of words, without its page furniture.

The reader (changes.py) matches amendatory phrases across line and page breaks, so the pages
are joined into one string; `Stream.page_at` maps a position back to its page. What is not the
endorsement's wording goes first, so that no change's text carries it: running headers and
footers ("CA 01 28 01 21 © Insurance Services Office, Inc., 2020 Page 1 of 3", "AU1003 (01-20)
Copyright, …"), signature lines, and the boilerplate every endorsement opens with ("THIS
ENDORSEMENT CHANGES THE POLICY", "This endorsement modifies insurance provided under the
following:" and the form names listed after it, "With respect to coverage provided by this
endorsement, the provisions of the Coverage Form apply unless modified …").
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from claims_crew.policy.run_together import respaced

# A form number printed alone on a line: ISO's "CA 01 28 01 21", an insurer's "AU1003 (01-20)".
_FORM_NUMBER = r"(?:[A-Z]{2} \d\d \d\d(?: \d\d){1,2}|[A-Z]{2,4}\s?\d{3,5}(?: \(\d\d[-/]\d\d\))?)"
_FURNITURE = re.compile(
    r"©|\bcopyright\b|all rights reserved|includes copyrighted material|with its permission"
    r"|\bpage \d+ of \d+\b|^_{3,}$|^authori[sz]ed (?:agent|representative)\b"
    rf"|^{_FORM_NUMBER}$|^commercial (?:auto|general liability|property|lines)$",
    re.IGNORECASE,
)


def _words(phrase: str) -> str:
    """A phrase that may wrap at any space."""
    return phrase.replace(" ", r"\s+")


_BOILERPLATE = re.compile(
    _words(r"this endorsement changes the policy\.?(?: please read it carefully\.?)?")
    # "… modifies insurance provided under the following:" and the forms it lists, in capitals;
    # a part's caption after them ("SECTION I – PERILS INSURED AGAINST") is the wording's own.
    + r"|(?:[^.:\n]*\n)?[^.:\n]*"
    + _words(r"this endorsement modifies insurance provided under the following")
    + r"\s*:"
    + r"(?:\s*\n(?!\s*(?:section|part)\s+(?:[IVX]{1,4}|\d{1,2})\s+[–—-])(?-i:[^a-z\n])+(?=\n))*|"
    + _words(
        r"with respect to (?:the )?coverage provided by this endorsement, the provisions of the"
        r" (?:coverage form|policy) apply unless modified by (?:the|this) endorsement\.?"
    ),
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Stream:
    """The pages' wording joined by newlines; `starts[i]` is where page i+1 begins."""

    text: str
    starts: tuple[int, ...]

    def page_at(self, offset: int) -> int:
        return max(1, bisect.bisect_right(self.starts, offset))


# A page whose public copy is one run of text (web copies of ISO and insurers' forms print the
# whole page on one line) holds its header and footer inside that line: a line that long is the
# wording, so only the furniture in it goes, not the line. The pieces: ISO's "© Insurance
# Services Office, Inc., 2012" (to its year), "Page 1 of 7", the "includes copyrighted
# material … with its permission" notice, and ISO's form number ("HO 01 31 12 12").
_RUN_WORDS = 40
_RUN_FURNITURE = re.compile(
    r"©[^©\n]{0,60}?\b(?:19|20)\d\d\b|\bpage \d+ of \d+\b"
    r"|includes copyrighted material[^\n]{0,120}?with its permission\.?"
    r"|\b[A-Z]{2} \d\d \d\d \d\d \d\d\b",
    re.IGNORECASE,
)


def _clean_line(line: str) -> str:
    if not _FURNITURE.search(line):
        return line
    if len(line.split()) < _RUN_WORDS:
        return ""
    return " ".join(_RUN_FURNITURE.sub(" ", line).split())


def _clean_page(page: str) -> str:
    lines = [_clean_line(line.strip()) for line in page.splitlines()]
    return "\n".join(line for line in lines if line)


def _blank(match: re.Match[str]) -> str:
    # Same length, newlines kept: positions (and so pages) stay where they were. It ends in a
    # line break: the boilerplate was a sentence of its own, so no reference runs back over it
    # into the title above (one-run copies print title, boilerplate and wording on one line).
    blank = re.sub(r"[^\n]", " ", match.group())
    return blank[:-1] + "\n" if blank and not blank.endswith("\n") else blank


# OCR reads the Roman numeral I as the digit 1: "SECTION 11— WHO IS AN INSURED". Only where the
# same endorsement names a section by a Roman numeral elsewhere ("Section III — Limits Of
# Insurance") is a section "11" or "111" read as II or III: an endorsement numbers its form's
# sections one way, and a form whose sections run to 11 is left as printed.
_ROMAN_SECTION = re.compile(r"\b(?i:section|part)\s+[IV]{1,4}\b")
_OCR_SECTION = re.compile(r"\b((?i:section|part)\s+)(1{1,3})(?=\s|[–—-]|$)")


def _roman_sections(text: str) -> str:
    if not _ROMAN_SECTION.search(text):
        return text
    return _OCR_SECTION.sub(lambda m: m.group(1) + "I" * len(m.group(2)), text)


def stream_of(pages: Sequence[str]) -> Stream:
    """The endorsement's wording, page 1 first, furniture and boilerplate blanked out."""
    starts: list[int] = []
    parts: list[str] = []
    offset = 0
    for page in pages:
        starts.append(offset)
        # a page whose copy lost its spaces gets the reader's words spaced (run_together.py)
        cleaned = _clean_page(respaced(page)) + "\n"
        parts.append(cleaned)
        offset += len(cleaned)
    text = _roman_sections(_BOILERPLATE.sub(_blank, "".join(parts)))  # same length
    return Stream(text, tuple(starts))


def tidy(text: str) -> str:
    """A change's words as one would quote them: lines kept, blank runs gone."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)
