"""Clause references read by how they are built, label by label, where a reference is more than
one clause's number and words (change_targets.py reduces those).

Three constructions of amendatory wording, each common to a drafting family rather than to one
form:

- a caption path listing several clauses, each by its label and title, from the part they lie
  in down ("A. Coverage, 5. Additional Coverages, c. Fire Department Service Charge, i. Civil
  Authority, k. Forgery Or Alteration, Paragraph (4), m. …, Paragraphs (1) and (5)(a)"): ISO's
  and insurers' package ("extension") endorsements name every paragraph they replace so, in one
  sentence. The labels follow ISO's outline (A. → 1. → a. → (1) → (a)), so where each label
  sits is told by its shape: each clause is the full path of labels ("A.5.c", "A.5.k.(4)");
- a caption run before a labelled reference ("… E. Additional Coverages 6. Credit Card …
  Paragraph 6.a. is replaced by the following"): ISO's state amendatory endorsements print the
  form's captions down to the paragraph and then the sentence; the reference is "Paragraph
  6.a.", the captions above it say where it lies;
- a part named by its figure and caption before a clause's label path, after a dash ("SECTION 1
  — COVERED AUTOS — C.", part_first): the part is where the clause lies;
- a definition named under its part with its label and term ("SECTION III – DEFINITIONS, FF.
  Incident"): claims-made forms (cyber, professional liability) letter their definitions, and
  the letters move between editions; the term is what the form defines, so the term is the
  target and the part is where it lies.

Each is read only when every token of it parses; anything else is left to change_targets.py,
whose rules then decide (and leave unread what cannot be reduced safely).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from claims_crew.policy.line_shapes import successors


@dataclass(frozen=True, slots=True)
class Path:
    """Clauses named by a caption path: each clause's full label path, and the captions of the
    parts they lie in."""

    targets: tuple[str, ...]
    within: str


# One entry of a caption path: a label and its title ("5. Additional Coverages"), or the
# paragraphs under the entry before ("Paragraph (4)", "Paragraphs (1) and (5)(a)").
_TITLED = re.compile(r"([A-Z]|[a-z]|\d{1,2})\.\s+([A-Z][\w'’-]*(?:\s+[\w'’-]+){0,8})")
_SUB = r"\((?:\d{1,2}|[a-z])\)(?:\((?:\d{1,2}|[a-z])\))*"
_PARAGRAPHS = re.compile(rf"Paragraphs?\s+({_SUB}(?:(?:,\s*|\s+and\s+){_SUB})*)")
_ITEM_LABEL = re.compile(r"^(?:\d{1,2}|[A-Z])\.\s+(?=[A-Z0-9]\.)")


def _level(label: str) -> int:
    """Where a label sits in ISO's outline: A. → 1. → a."""
    if label.isdigit():
        return 1
    return 0 if label.isupper() else 2


def caption_path(printed: str) -> Path | None:
    """The clauses a caption path names, or None where the words are not one (every entry a
    label and title, or paragraphs under the entry before; each label one level below the one
    it follows, or beside it)."""
    text = _ITEM_LABEL.sub("", " ".join(printed.split()).strip(" ,.:"))
    entries = [e.strip() for e in text.split(",")]
    if len(entries) < 3:
        return None
    path: list[tuple[int, str, str]] = []  # (level, label, title) down to the entry read last
    leaves: list[tuple[str, ...]] = []
    has_child = False
    for entry in entries:
        if (titled := _TITLED.fullmatch(entry)) is not None:
            level = _level(titled[1])
            if path and level > path[-1][0] + 1:
                return None  # a level skipped: not ISO's outline
            if path and level <= path[-1][0] and not has_child:
                leaves.append(tuple(p[1] for p in path))
            while path and path[-1][0] >= level:
                path.pop()
            if not path and leaves:
                return None  # a second top of the path: two places, not one
            path.append((level, titled[1], titled[2]))
            has_child = False
        elif (paragraphs := _PARAGRAPHS.fullmatch(entry)) is not None and path:
            subs = re.findall(_SUB, paragraphs[1])
            leaves += [(*(p[1] for p in path), sub) for sub in subs]
            has_child = True
        else:
            return None
    if path and not has_child:
        leaves.append(tuple(p[1] for p in path))
    depth = min(len(leaf) for leaf in leaves) if leaves else 0
    if len(leaves) < 2 or depth < 2:
        return None
    # The parts every clause lies in: the path they share, less the clauses' own labels.
    shared = [entries[i] for i in range(depth - 1)]
    if any(leaf[: depth - 1] != leaves[0][: depth - 1] for leaf in leaves):
        return None
    return Path(tuple(".".join(leaf) for leaf in leaves), ", ".join(shared))


# "… Money Paragraph 6.a.", "Form HO 00 02 Only Paragraph 12.b.": a labelled reference printed
# right after words that do not lead into it (no "of", "in", "to", comma or dash between).
_HEADED = re.compile(
    r"(?<=[A-Za-z0-9)\]…])\s+((?:Sub-?)?Paragraphs?\s+(?:\d{1,2}|[A-Za-z])\.(?:[\w()]{1,3}\.?)*)$"
)
_JOINING = frozenset({"of", "in", "to", "under", "and", "or", "the", "for"})
_PART = re.compile(r"\b(?:SECTION|PART)\s+[IVX\d]{1,4}\b.*$", re.I)


def after_captions(printed: str) -> tuple[str, str] | None:
    """A labelled reference at the end of a caption run, and where the captions say it lies
    (from the last part they name, "SECTION I – PROPERTY COVERAGES …"), or None."""
    text = " ".join(printed.split())
    headed = _HEADED.search(text)
    if headed is None:
        return None
    before = text[: headed.start()].rstrip()
    if not before or before.split()[-1].lower() in _JOINING:
        return None
    part = _PART.search(before)
    return headed[1], part.group() if part else ""


# "SECTION III – DEFINITIONS, FF. Incident": a Definitions part, then a label (one or two
# letters, or a number) and the term, in title case.
_DEFINED = re.compile(
    r"(?P<part>(?:(?:SECTION|PART)\s+[IVX\d]{1,4}\s+[–—-]\s+)?DEFINITIONS),?\s+"
    r"(?:[A-Z]{1,2}|\d{1,2})\.\s+(?P<term>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,4})",
    re.I,
)


def defined_term(printed: str) -> tuple[str, str] | None:
    """The term a definition reference names and the part it lies in, or None."""
    text = " ".join(printed.split()).strip(" ,.:")
    found = _DEFINED.fullmatch(text)
    return (found["term"], found["part"]) if found else None


# "Paragraph D. of this endorsement replaces …": the endorsement's own paragraph, by its label.
OWN_PART = (
    r"\b(?:(?:sub-?)?paragraphs?|sections?|items?|parts?)\s+\w{1,3}\.?\s+of\s+this\s+endorsement\s+"
)
OWN_LABEL = re.compile(r"\s(\w{1,3})\.?\s+of\s+this\s+endorsement\s", re.IGNORECASE)


def own_paragraph(text: str, label: str, after: int) -> str:
    """The words of the endorsement's own paragraph `label` ("D."), printed after `after`."""
    at = re.compile(rf"(?m)^{re.escape(label)}\.\s").search(text, after)
    if at is None:
        return ""
    nexts = "|".join(re.escape(n) for n in successors(label))
    stop = re.compile(rf"(?m)^(?:{nexts})\.\s").search(text, at.end()) if nexts else None
    return text[at.start() : stop.start() if stop else len(text)].strip()


# "Section X. OTHER CONDITIONS, subsection A. Cancellation", "SECTION I – COVERED AUTOS,
# paragraph C. Certain Trailers …", "SECTION II – LIABILITY COVERAGE in Paragraph A. …":
# insurers' own forms name the part by its number and caption first, then the clause of it by
# its numbering word and label. The clause lies in the part, as "subsection A. of Section X."
# says it; the part is not a clause of its own with A. under it.
_PART_THEN_CLAUSE = re.compile(
    r"(?P<part>(?i:section|part)\s+(?:[IVX]{1,4}|\d{1,2})\.?(?:\s+[–—-])?\s+[A-Z][A-Z'’ ]{2,60}?)"
    r"\s*(?:,|\s+in)\s+"
    r"(?P<clause>(?i:sub-?)?(?i:sections?|subsections?|paragraphs?|items?)\s+"
    r"(?:[A-Za-z]|\d{1,2})\..*)"
)
# "CONDITIONS Section 6.8 NOTICE OF CANCELLATION": the caption of the part the clause lies in,
# in capitals, printed on the clause's line before its numbering word.
_CAPTION_BEFORE = re.compile(
    r"(?P<part>(?:[A-Z]{3,}\s+){0,2}(?:DEFINITIONS|EXCLUSIONS|CONDITIONS))\s+"
    r"(?P<clause>(?i:sub-?)?(?i:sections?|subsections?|paragraphs?|conditions?|exclusions?)\s+"
    r"(?:[A-Za-z]|\d{1,2})[.\d]*(?:\s.*)?)"
)


# "SECTION 11 — LIABILITY COVERAGE — A.1. WHO IS AN INSURED": ISO's caption path, the part's
# number and caption, a dash, then the clause's label path. A part numbered in Roman numerals
# joins the label ("Section II.A.1", change_targets.py); one numbered in figures (insurers' own
# forms, or OCR reading II as 11) is where the clause lies, since a figure is no part of a label.
_PART_DASH_CLAUSE = re.compile(
    r"(?P<part>(?i:section|part)\s+\d{1,2}\s+[–—-]\s+[A-Z][A-Z'’ ]{2,60}?)\s+[–—-]\s+"
    r"(?P<clause>[A-Z]\.(?:\d{1,2}|[IVX]{1,4})\.(?:[a-z]\.)?(?:\s.*)?)"
)


def part_first(printed: str) -> tuple[str, str] | None:
    """The clause and the part it lies in, where the part is named before the clause ("Section X.
    OTHER CONDITIONS, subsection A. Cancellation", "CONDITIONS Section 6.8 …"), or None."""
    # less the endorsement's own list label ("2. Section X. …") and the comma it goes on at
    text = re.sub(r"^(?:[A-Za-z]|\d{1,2})\.\s+(?=\S)", "", " ".join(printed.split())).rstrip(" ,")
    found = (
        _PART_THEN_CLAUSE.fullmatch(text)
        or _CAPTION_BEFORE.fullmatch(text)
        or _PART_DASH_CLAUSE.fullmatch(text)
    )
    return (found["clause"], found["part"].strip()) if found else None


def inverted(targets: Sequence[str], within: str) -> bool:
    """Whether a part of the form ("Section II") is said to lie in a clause of its own ("Paragraph
    A. …"): the words were read the wrong way round (a part, then "in" a clause of it), or across
    another column's text, and no change is read from them."""
    return (
        bool(targets)
        and bool(re.match(r"(?i:(?:sub-?)?paragraphs?)\s+\S+\.", within))
        and all(
            re.fullmatch(r"(?:Section|Part) [IVX]{1,4}|[A-Z]", t) is not None
            for t in (t.split(".")[0] for t in targets)
        )
    )
