"""When two reviewer names are the same person: compared without regard to case, surrounding
space, or the Unicode spelling of the same letters.

Four eyes means two people, and the desk knows people by name: were "bo" and "Bo" two
reviewers, one person could propose a denial as one and confirm it as the other. So a name is
unique by its key (the store keeps a unique index on it), and every comparison of who someone
is goes through `same_person`. The name as it was typed is kept for display.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


def name_key(name: str) -> str:
    """The form two names are compared in: stripped, NFKC-normalised (so a full-width "ｂｏ" is
    "bo"), and case-folded (so "BO" and "bo" and "Bö"/"bö" meet, as `str.lower` alone would not
    for every script)."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


def same_person(one: str, other: str) -> bool:
    """Whether two reviewer names name the same reviewer."""
    return name_key(one) == name_key(other)


def among(name: str, names: Iterable[str]) -> bool:
    """Whether `name` is one of `names`, compared as `same_person` does."""
    key = name_key(name)
    return any(name_key(n) == key for n in names)
