"""Where an endorsement's sentences and list items begin and end, for the phrases found in it
(change_phrases.py): a full stop ends a sentence unless it is part of a clause's number ("Paragraph
1. of", "B.5., Fellow Employee") or a label a line wraps onto ("… added to Paragraph\nB.1."); a
list item begins at its label and any caption in capitals above it.
"""

from __future__ import annotations

import re

from claims_crew.policy.change_targets import ITEM_LABEL, NUMBER, ROMAN
from claims_crew.policy.ids import WRAPPING_WORDS

# A line that opens with a clause's numbering word and its number: "Condition 1 of this policy".
# Its list label may open the line first: "(1) Paragraph A.1. — WHO IS AN INSURED —".
_NAMED_LINE = re.compile(
    r"(?m)^(?:\(\w{1,3}\)\s+)?(?:Condition|Paragraph|Subparagraph|Section|Exclusion|Provision|Item|Clause|Definition)s?\s+(?:\d|[A-Z]\.|\()"
)
# Words that lead into what the next line names ("… of\nSection IV").
_LEADING = frozenset({"of", "in", "to", "under", "and", "or", "the", "for", "at", "by", "with"})
# How far back (or on) from a phrase its reference may run.
MAX_REF = 300


def is_boundary(text: str, dot: int) -> bool:
    """Whether the full stop, colon or semicolon at `dot` ends a sentence or list label."""
    if text[dot] in ":;":
        return True
    after = text[dot + 1 : dot + 4].lstrip("\x22”’").lstrip()  # past a closing quotation mark
    if after[:1].islower() or after[:1] in ",)":
        return False  # "Paragraph 1. of", "B.5., Fellow Employee"
    line_start = text.rfind("\n", 0, dot) + 1
    token_start = max(text.rfind(" ", 0, dot), line_start - 1) + 1
    token = text[token_start:dot]
    numbered = bool(NUMBER.fullmatch(token) or ROMAN.fullmatch(token))
    # A number mid-sentence ("of a. Supplementary") goes on; a label at a line's start ends,
    # unless the line before ends with the word that names it ("… added to Paragraph\nB.1.").
    if not numbered or token_start != line_start:
        return not numbered
    above = text[max(0, line_start - 30) : line_start].split()
    # ids.WRAPPING_WORDS, printed in lower case or capitalized; in capitals it ends a caption.
    return not above or above[-1].isupper() or above[-1].lower() not in WRAPPING_WORDS


def caps_line(line: str) -> bool:
    return any(c.isalpha() for c in line) and not any(c.islower() for c in line)


def start_of_sentence(text: str, end: int) -> int:
    """Where the sentence or list item that ends at `end` (a phrase) begins."""
    low = max(0, end - MAX_REF)
    start = low
    for match in re.finditer(r"[.:;](?=\s)|\.\)(?=\s+[A-Z])|\.[\x22”’](?=\s)", text[low:end]):
        # ".) " closes a sentence in brackets ("(This is Paragraph D.6. in Form HO 00 06.)");
        # '." ' one that ends on a quoted term: American punctuation sets the full stop inside
        # the closing quotation mark (ISO's '… use of the additional insured's "autos."').
        if match.group() == ".)" or is_boundary(text, low + match.start()):
            start = low + match.end()
    while start < end and text[start].isspace():
        start += 1
    for match in re.finditer(r"\n", text[start:end]):
        line_start = text.rfind("\n", 0, start + match.start()) + 1
        if caps_line(text[line_start : start + match.start()]):
            start = start + match.end()  # after a caption in capitals
    for match in _NAMED_LINE.finditer(text, start, end):
        # "… reserves all rights and defenses\nCondition 1 of this policy is further amended":
        # a line opening with a clause's numbering word and number begins the reference, unless
        # the line before leads into it ("Paragraph 4. of\nSection IV", "… and\nParagraph 5.").
        above = text[start : match.start()].split()
        lead = above[-1].lower() if above else ""
        if lead and lead not in WRAPPING_WORDS | _LEADING and not lead.endswith((",", "–", "-")):
            start = match.start()
    return start


def reference_after(text: str, pos: int) -> tuple[str, int]:
    """The reference printed from `pos` to its colon or sentence end, and where it ends."""
    window = text[pos : pos + MAX_REF]
    for match in re.finditer(r"[.:;](?=\s|$)", window):
        if is_boundary(text, pos + match.start()):
            return window[: match.start()], pos + match.end()
    line_end = window.find("\n")
    cut = line_end if line_end >= 0 else len(window)
    return window[:cut], pos + cut


def unit_start(text: str, start: int) -> int:
    """Where a list item begins: before its label ("e. ") and any caption in capitals above."""
    line_start = text.rfind("\n", 0, start) + 1
    if ITEM_LABEL.fullmatch(text[line_start:start]) or not text[line_start:start].strip():
        start = line_start
    while start > 0:
        prev = text.rfind("\n", 0, start - 1) + 1
        if not caps_line(text[prev : start - 1]):
            break
        start = prev
    return start
