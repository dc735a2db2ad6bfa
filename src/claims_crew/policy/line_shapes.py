"""What a line of a policy looks like: a heading in capitals or Title Case, a heading asked as
a question, a heading wrapped onto a second line, a roman numeral, a running header or footer.

Pure functions over lines of text; segment.py decides what they open.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

DECIMAL = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,3}){1,4})\.?(?=\s|[A-Z(“\"]|$)\s*(?P<title>.*)$")
ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
# Plain-language wordings ask their headings: "When are You Not Covered if You are pregnant?"
QUESTION_HEADING = re.compile(
    r"^(?:what|when|who|how|where|which|why|are|is|do|does|can|will)\b[^.;:?]{3,70}\?$",
    re.IGNORECASE,
)
# A phrase policies use as a heading, with or without a title after a dash.
VOCAB_HEADING = re.compile(
    r"^(?:what (?:is|are) (?:not )?covered|what we (?:will|won[’']t|do not|don[’']t) (?:pay|cover)"
    r"|(?:general |special |policy )?(?:exclusions?|conditions?|definitions?)"
    r"|limits? of (?:liability|insurance|cover))(?:\s*(?:[-–—:]|__)\s*[^.;]{0,60})?$",
    re.IGNORECASE,
)
# "III Kidney Failure" after "I. Stroke" and "II. Cancer": a list whose dots went missing.
BARE_ROMAN = re.compile(r"^(?P<num>[IVX]{1,6})\s+(?P<title>[A-Z][a-z].*)$")
SENTENCE_END = re.compile(r"[.:;!?)\"”’]\s*$")


def roman(token: str) -> int | None:
    """Value of a lower-case roman numeral up to 'xxxix', else None."""
    if not token or any(ch not in "ivx" for ch in token):
        return None
    total, prev = 0, 0
    for ch in reversed(token):
        value = ROMAN_VALUES[ch]
        total += -value if value < prev else value
        prev = max(prev, value)
    return total if 0 < total < 40 else None


_FUNCTION_WORDS_TEXT = """
a an and as at by for from in into of on or per the to with what is are not we you your
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())


def title_case_heading(line: str) -> bool:
    words = line.replace("__", " ").split()
    if not 1 <= len(words) <= 8 or len(line) > 60 or any(ch.isdigit() for ch in line):
        return False
    if not line[0].isupper() or line.endswith((".", ",", ";", ":")):
        return False
    if words[-1].lower() in FUNCTION_WORDS:
        return False
    content = [w for w in words if w.lower() not in FUNCTION_WORDS and any(c.isalpha() for c in w)]
    return bool(content) and all(w[0].isupper() or w[0] in "&–—-/(" for w in content)


def caps_heading(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    if len(letters) < 4 or len(line) > 70 or len(line.split()) > 10 or "...." in line:
        return False
    if line.endswith((",", ";", ".")) or line.split()[-1].lower() in FUNCTION_WORDS:
        return False
    return sum(c.isupper() for c in letters) >= 0.9 * len(letters)


def keyword_title_ok(title: str) -> bool:
    """Tell "Section 13 - Delayed Baggage" from "Section 4 – Cancellation cover shall be"."""
    if not title:
        return True
    if title.endswith((",", ";")) or title[0].islower():
        return False
    long_words = [w for w in title.split() if sum(c.isalpha() for c in w) >= 4]
    capitalised = sum(w[0].isupper() or not w[0].isalpha() for w in long_words)
    return len(long_words) <= 10 and capitalised >= 0.75 * len(long_words)


def wraps_heading(prev: str, line: str) -> bool:
    """A heading too long for its column goes on, in the same case, on the next line:
    "COVER – PERSONAL BAGGAGE, VALUABLES, MONEY AND TRAVEL" then "DOCUMENTS COVER"."""
    if len(prev) < 45 or SENTENCE_END.search(prev) or len(line.split()) > 4:
        return False
    if VOCAB_HEADING.match(line):  # "What is covered" opens a part of its own
        return False
    return line.isupper() == prev.isupper()


def slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words[:6]) or "heading"


def furniture(pages: Sequence[Sequence[str]]) -> frozenset[str]:
    """Lines repeated at the top or bottom of most pages: running headers, footers, watermarks.

    They stay in the clause text (nothing is dropped) but never open a clause.
    """
    if len(pages) < 3:
        return frozenset()
    seen: Counter[str] = Counter()
    for lines in pages:
        edge = [ln for ln in lines if ln][:16] + [ln for ln in lines if ln][-5:]
        # Numbered clauses at the top of short pages look alike once digits are folded; they
        # are content, not furniture.
        seen.update({furniture_key(ln) for ln in edge if not DECIMAL.match(ln)})
    floor = max(3, len(pages) // 2)
    return frozenset(key for key, n in seen.items() if n >= floor)


def furniture_key(line: str) -> str:
    return re.sub(r"\d+", "#", line.lower())


def short_title(title: str) -> str:
    title = " ".join(title.split())
    return title if len(title) <= 100 else title[:99].rstrip() + "…"


# The roman numerals an endorsement labels its own items with, in order.
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")


def successors(label: str) -> tuple[str, ...]:
    """The labels that may follow `label` in its list: "3" → "4", "b" → "c", "I" → "J" or "II"."""
    if label.isdigit():
        return (str(int(label) + 1),)
    found: list[str] = []
    if len(label) == 1 and label.isalpha() and label.lower() != "z":
        found.append(chr(ord(label) + 1))
    lower = label.lower()
    if lower in _ROMAN[:-1]:
        following = _ROMAN[_ROMAN.index(lower) + 1]
        found.append(following.upper() if label.isupper() else following)
    return tuple(found)
