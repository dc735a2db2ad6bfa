"""A page whose copy lost the spaces between words ("Thefollowingisaddedto SECTIONIII-…"), with
the spaces of the reader's own words put back.

Some PDF producers place each word by its position and print no space between them; a text
layer or web copy taken from such a file runs every line's words together. No dictionary could
split all of them safely, and none is needed: the reader matches its amendatory phrases
(change_phrases.py), the words that number a clause ("Paragraph", "SECTION", "Condition") and
list labels, so only those get their spaces back. The rest of the words stay joined, and the
words a change brings stay as printed but for those spaces.

A page is run together when its long lines hold almost no spaces; any other page is left
exactly as printed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_F = re.IGNORECASE
# A line this long with fewer spaces than one per this many characters has lost its spaces:
# English prose has one about every six characters.
_LONG_LINE = 40
_CHARS_PER_SPACE = 20


def _words(found: str) -> str:
    """The words of a run of the reader's vocabulary, spaced: "asfollows" → "as follows"."""
    return " ".join(_VOCABULARY.findall(found))


_VOCABULARY = re.compile(
    r"the|following|is|are|added|inserted|to|under|in|amended|changed|modified|revised|replaced"
    r"|deleted|as|follows|by|with|read|[a-z]+",
    _F,
)
_RESPACED: tuple[tuple[re.Pattern[str], str], ...] = (
    # the amendatory phrases: "thefollowing[exclusion]isaddedto", "isamendedasfollows:",
    # "isreplacedbythefollowing", "isdeleted"
    (
        re.compile(
            r"(?<![a-z])the\s*following(?:\s*[a-z]{4,12}?)?\s*(?:is|are)\s*(?:added|inserted)"
            r"(?:\s*(?:to|under|in)(?=[A-Z]|\s|para|sect|sub))?",
            _F,
        ),
        " {} ",
    ),
    (
        re.compile(
            r"(?<![a-z])(?:is|are)\s*(?:amended|changed|modified|revised|replaced|deleted)"
            r"(?:\s*(?:as\s*follows|by\s*the\s*following|with\s*the\s*following|to\s*read))?",
            _F,
        ),
        " {}",
    ),
    # a clause's numbering word before its number: "paragrapha.", "SECTIONIII-", "Condition4."
    (
        re.compile(
            r"(?:(?:sub)?paragraphs?|sections?|conditions?|exclusions?|parts?)"
            r"(?=(?:[IVX]{1,4}|\d{1,2})[.\-–—\s:,]|[a-z]\.)",
            _F,
        ),
        " {} ",
    ),
    # "…InsuranceofSECTIONIV": "of" before a part named in capitals
    (re.compile(r"(?<=[a-z])of(?= ?(?:SECTION|PART))"), " {} "),
    # "SECTION III-LIMITSOFINSURANCE": the dash between a part's number and its caption
    (re.compile(r"(?<=[IVX\d])-(?=[A-Z]{2})"), " {} "),
    # a list label, a clause's label and a comma, each followed by its word: "a.The",
    # "paragraph a.PrimaryInsurance", "Insureds,the"
    (re.compile(r"(?m)^(?:[a-z]|\d{1,2}|[A-Z])\.(?=[A-Z(])"), "{} "),
    (re.compile(r"(?<=[a-z] )(?:[IVX]{1,4}|\d{1,2}|[a-z])\.(?=[A-Z])", _F), "{} "),
    (re.compile(r",(?=[A-Za-z])"), "{} "),
)
# The rules above whose words are the reader's vocabulary, spaced word by word.
_SPACED_WORDS = 2


def is_run_together(page: str) -> bool:
    """Whether most of a page's long lines have lost their spaces."""
    long = [line for line in page.splitlines() if len(line.strip()) >= _LONG_LINE]
    joined = [line for line in long if line.count(" ") * _CHARS_PER_SPACE < len(line)]
    return bool(long) and len(joined) * 2 > len(long)


def _spacer(template: str, spaced: bool) -> Callable[[re.Match[str]], str]:
    def space(found: re.Match[str]) -> str:
        return template.format(_words(found.group()) if spaced else found.group())

    return space


def respaced(page: str) -> str:
    """The page with the reader's words spaced again, if it ran together; else as printed."""
    if not is_run_together(page):
        return page
    for n, (pattern, template) in enumerate(_RESPACED):
        page = pattern.sub(_spacer(template, spaced=n < _SPACED_WORDS), page)
    return "\n".join(" ".join(line.split()) for line in page.splitlines())
