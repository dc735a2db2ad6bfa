"""Clause references, read one way: the words printed before a clause's label, and its key.

A reference names a clause by its label, often with a word before it: "Section II B.",
"Paragraph 4.2(b)", "Clause 7", "Exclusion B.5.". `REFERENCE_WORDS` is the one list of those
words, each with what the readers make of it: whether a key drops it, whether it may open an
endorsement's target (target_clauses.py), whether a letter after it is a clause number and
whether it is kept before a Roman numeral (change_targets.py), and the kind of clause it names.

`clause_key` is the one reduction of a reference to a key: lower case, the words a key drops
(and "§") dropped, the letters and digits left split into tokens, so punctuation and spacing stop
mattering: `4.2(b)`, `4.2 (b)`, `§4.2(b)`, `clause 4.2b` are one clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claims_crew.policy.kinds import ClauseKind


@dataclass(frozen=True, slots=True)
class ReferenceWord:
    """A word printed before a clause's label, and what each reader makes of it."""

    word: str
    # Dropped from a key: "Section 7" and "7" are one clause; "Exclusion 7" is not "7".
    in_key: bool = True
    # May open an endorsement's target, before its label ("Clause 4.2(b)"); `dotted`: with or
    # without a full stop after it ("No. 4").
    leads: bool = False
    dotted: bool = False
    # A single letter after it is a clause number ("Coverage A", "Paragraph b"), not a word.
    numbers: bool = False
    # Kept before a Roman numeral or a capital, as forms print such parts: "Section II".
    kept: bool = False
    # May name the outer part in "Paragraph B.5. of Section II".
    outer: bool = False
    # The kind of clause it names: "Exclusion B.5." is an exclusion.
    kind: ClauseKind | None = None
    # A line may end on it, its number on the next ("… is added to Paragraph\nB.1."): a word a
    # sentence names a number with, never a caption's last word ("… Virus Exclusions").
    wraps: bool = False


_W = ReferenceWord
# The order is the order a target's opening words are tried in (target_clauses.py): keep it.
REFERENCE_WORDS: tuple[ReferenceWord, ...] = (
    _W("the", leads=True),
    _W("section", in_key=False, leads=True, numbers=True, kept=True, outer=True),
    _W("sections", leads=True, numbers=True, kept=True),
    _W("part", in_key=False, leads=True, numbers=True, kept=True, outer=True),
    _W("article", in_key=False, leads=True, outer=True),
    _W("clause", in_key=False, leads=True, numbers=True, outer=True, wraps=True),
    _W("paragraph", in_key=False, leads=True, numbers=True, outer=True, wraps=True),
    _W("subparagraph", leads=True, numbers=True, wraps=True),
    _W("provision", leads=True, numbers=True, wraps=True),
    _W("item", in_key=False, leads=True, numbers=True, wraps=True),
    _W("exclusion", leads=True, numbers=True, kind="exclusion", wraps=True),
    _W("exclusions", leads=True, numbers=True, kind="exclusion"),
    _W("definition", leads=True, numbers=True, kind="definition"),
    _W("definitions", leads=True, numbers=True, kind="definition"),
    _W("condition", leads=True, numbers=True, kind="condition"),
    _W("conditions", leads=True, numbers=True, kind="condition"),
    _W("coverage", leads=True, numbers=True, outer=True, kind="grant"),
    _W("limit", leads=True, kind="limit"),
    _W("no", in_key=False, leads=True, dotted=True),
    _W("number", in_key=False, leads=True),
    _W("§", in_key=False, leads=True),
    _W("sec", in_key=False),
    _W("cl", in_key=False),
    _W("art", in_key=False),
    _W("para", in_key=False),
    _W("paragraphs", numbers=True, wraps=True),
    _W("subparagraphs", numbers=True),
    _W("provisions", numbers=True),
    _W("items", numbers=True),
    _W("clauses", numbers=True),
    _W("subsection", numbers=True),
    _W("subsections", numbers=True),
    _W("parts", numbers=True, kept=True),
    _W("coverages", numbers=True),
)

NUMBERING_WORDS = frozenset(w.word for w in REFERENCE_WORDS if w.numbers)
KEPT_WORDS = frozenset(w.word for w in REFERENCE_WORDS if w.kept)
WRAPPING_WORDS = frozenset(w.word for w in REFERENCE_WORDS if w.wraps)
KIND_WORDS: dict[str, ClauseKind] = {w.word: w.kind for w in REFERENCE_WORDS if w.kind}
# A target's opening words, as many as it has ("the Section", "Clause No. 4"), each a whole
# word: "Theft" is a title, not "the" before "ft"; "Exclusions" is not "Exclusion" and "s".
LEAD = re.compile(
    r"^(?:(?:"
    + "|".join(re.escape(w.word) + (r"\.?" if w.dotted else "") for w in REFERENCE_WORDS if w.leads)
    + r")(?![^\W\d_])\s*)+",
    re.IGNORECASE,
)
OUTER_WORDS = "|".join(w.word for w in REFERENCE_WORDS if w.outer)

_DROPPED = [w.word for w in REFERENCE_WORDS if not w.in_key]
# "§" stands alone; a word only whole, with the full stop of its abbreviation ("sec.", "no.").
_NOISE_WORDS = re.compile(
    "|".join(re.escape(w) for w in _DROPPED if not w.isalpha())
    + r"|\b(?:"
    + "|".join(w for w in _DROPPED if w.isalpha())
    + r")\b\.?",
    re.IGNORECASE,
)
_REPEAT = re.compile(r"~\d+")
_TOKENS = re.compile(r"[0-9]+|[a-z]+")


def clause_key(reference: str) -> str:
    """The normalised key of a clause id or of a reference to one; "" when nothing is left."""
    # "~2" marks the second clause with the same label; the key is shared, the id is not.
    text = _NOISE_WORDS.sub(" ", _REPEAT.sub("", reference.lower()))
    return "/".join(_TOKENS.findall(text))
