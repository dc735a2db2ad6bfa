"""Find a policy's table of contents, so that its lines never open clauses.

A contents page repeats the headings of the policy with page numbers. Read as headings, its lines
open clauses whose text is the contents page ("Section 11: Jurisdiction Clause 46"), and the
clause that really carries the heading gets a "~2" id. The lines stay in the text (every line
lands in a clause); they just never open one.

A page holds a contents block when it has:
- a contents heading ("Contents", "Table of contents", "Index", "Schedule of forms and
  endorsements") and at least three entries; or
- at least five entries with dot leaders ("Definitions ........ 4"); or
- at least five entries with a page number ("Definitions 4", "12 Section 2 – Cancellation") whose
  titles are repeated as lines later in the document, with page numbers that never go back and do
  not mostly count 1, 2, 3 (that is a numbered list, not a contents page).

The block runs from its first entry or heading to its last, and takes in the few lines before
or after it on the same page (a document title, "Page 1"). A page right after a contents page
that is full of entries continues it.

Pure functions over the page lines: no I/O.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

_HEADING = re.compile(
    r"^(?:table of contents|contents(?: page)?|index|policy contents|what(?:'|’)?s inside"
    r"|schedule of forms(?: and endorsements)?|forms and endorsements schedule)\s*:?$",
    re.IGNORECASE,
)
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}\s*\d{1,3}$|…{2,}\s*\d{1,3}$")
_TRAILING_PAGE = re.compile(r"^(?P<title>.*[A-Za-z)].*?)\s+(?P<page>\d{1,3})$")
_LEADING_PAGE = re.compile(r"^(?P<page>\d{1,3})\s+(?P<title>[A-Z(].*[A-Za-z)])$")
# A schedule of forms: "CA 00 01   10-13   BUSINESS AUTO COVERAGE FORM".
_FORM_ENTRY = re.compile(r"^[A-Z]{0,6}\s?\d[\d ]{1,8}\.?\s{2,}\d{2}-\d{2}\s{2,}\S")
# Lines around a block on its page that belong to it: a title, a page number, a running head.
_SLACK_LINES = 3
_MIN_ENTRIES = 5


def _key(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower().replace("__", " ")))


def _entry(line: str, later: frozenset[str]) -> bool:
    """Whether a line reads as a contents entry: dot leaders, a form number, or a page number
    beside a title that appears again later as a line of its own."""
    if _DOT_LEADER.search(line) or _FORM_ENTRY.match(line):
        return True
    return any(
        (m := pattern.match(line)) is not None and _key(m["title"].lstrip("•▪●◦-– ")) in later
        for pattern in (_TRAILING_PAGE, _LEADING_PAGE)
    )


def _page_of(line: str) -> int | None:
    if m := _TRAILING_PAGE.match(line):
        return int(m["page"])
    if m := _LEADING_PAGE.match(line):
        return int(m["page"])
    return None


def _paged(line: str) -> bool:
    """Title followed by a page number, or a page number followed by a title."""
    return bool(_TRAILING_PAGE.match(line) or _LEADING_PAGE.match(line))


def contents_lines(pages: Sequence[Sequence[str]]) -> frozenset[tuple[int, int]]:
    """(page index, line index) of every line that belongs to a contents block.

    `pages` are the stripped lines of each page, page 1 first.
    """
    # Where each heading-like line next appears, to tell "Definitions 4" (an entry whose
    # heading comes later) from a sentence that ends with a number.
    last_seen: dict[str, int] = {}
    for p, lines in enumerate(pages):
        for line in lines:
            if line and len(line) <= 90:
                last_seen[_key(line)] = p
    found: set[tuple[int, int]] = set()
    previous_was_contents = False
    for p, lines in enumerate(pages):
        later = frozenset(k for k, seen in last_seen.items() if seen > p)
        block = _block(lines, later, previous_was_contents)
        previous_was_contents = block is not None
        if block is not None:
            found.update((p, i) for i in range(block[0], block[1] + 1))
    return frozenset(found)


def _block(lines: Sequence[str], later: frozenset[str], continues: bool) -> tuple[int, int] | None:
    """First and last line index of the contents block on one page, or None."""
    heading = [i for i, ln in enumerate(lines) if _HEADING.match(ln)]
    entries: list[int] = []
    dotted = 0
    for i, line in enumerate(lines):
        if not line:
            continue
        is_entry = _entry(line, later) or ((bool(heading) or continues) and _paged(line))
        if is_entry:
            entries.append(i)
            dotted += bool(_DOT_LEADER.search(line))
    if not entries:
        return None
    # Every numbered line of the page, matched or not: a numbered list counts 1, 2, 3.
    numbers = [_page_of(ln) for ln in lines if ln and _paged(ln)]
    if not (
        (heading and len(entries) >= 3)
        or dotted >= _MIN_ENTRIES
        or (continues and len(entries) >= _MIN_ENTRIES)
        or (len(entries) >= _MIN_ENTRIES and _page_numbers([n for n in numbers if n is not None]))
    ):
        return None
    first = min(entries + heading)
    last = max(entries + heading)
    content = [i for i, ln in enumerate(lines) if ln]
    before = [i for i in content if i < first]
    after = [i for i in content if i > last]
    if len(before) <= _SLACK_LINES or all(len(lines[i]) <= 2 for i in before[:-_SLACK_LINES]):
        first = 0
    if len(after) <= _SLACK_LINES:
        last = len(lines) - 1
    return first, last


def _page_numbers(pointers: Sequence[int]) -> bool:
    """Page numbers of a contents page: never going back, and mostly not counting 1, 2, 3."""
    if len(pointers) < _MIN_ENTRIES:
        return False
    steps = [b - a for a, b in itertools.pairwise(pointers)]
    return all(s >= 0 for s in steps) and sum(s == 1 for s in steps) < 0.6 * len(steps)
