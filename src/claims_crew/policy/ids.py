"""Forgiving clause references: `4.2(b)`, `4.2 (b)`, `§4.2(b)`, `clause 4.2b` are one clause.

A reference is reduced to a key: lower case, words like "section" or "clause" dropped, and the
remaining letters and digits split into tokens, so punctuation and spacing stop mattering.
"""

from __future__ import annotations

import re

_NOISE_WORDS = re.compile(
    r"§|\b(?:section|sec|clause|cl|article|art|part|paragraph|para|item|no|number)\b\.?",
    re.IGNORECASE,
)
_REPEAT = re.compile(r"~\d+")
_TOKENS = re.compile(r"[0-9]+|[a-z]+")


def clause_key(reference: str) -> str:
    """The normalised key of a clause id or of a reference to one; "" when nothing is left."""
    # "~2" marks the second clause with the same label; the key is shared, the id is not.
    text = _NOISE_WORDS.sub(" ", _REPEAT.sub("", reference.lower()))
    return "/".join(_TOKENS.findall(text))
