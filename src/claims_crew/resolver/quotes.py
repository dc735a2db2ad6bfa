"""Quote matching: does an agent's quote occur in the clause it cites?

Models copy text with curly quotes, changed case, rejoined line-end hyphens and other spacing,
and shorten long passages with an ellipsis. None of that changes what the quote says, so both
sides are folded the same way before they are compared; anything else is a misquote.
"""

from __future__ import annotations

import re

_QUOTE_MARKS = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})
_LINE_HYPHEN = re.compile(r"(\w)-\s*\n\s*(\w)")
_SPACE = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
_EDGE = " \"'.,;:"


def fold(text: str) -> str:
    """Text reduced for quote matching: case, curly quotes, line-end hyphens and spacing."""
    text = _LINE_HYPHEN.sub(r"\1\2", text.translate(_QUOTE_MARKS))
    return _SPACE.sub(" ", text).strip().lower()


def quote_in(quote: str, folded_text: str) -> bool:
    """The quote occurs in the text; "a … b" means a, then later b."""
    parts = [p.strip(_EDGE) for p in _ELLIPSIS.split(fold(quote))]
    parts = [p for p in parts if p]
    if not parts:
        return False
    at = 0
    for part in parts:
        at = folded_text.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return True
