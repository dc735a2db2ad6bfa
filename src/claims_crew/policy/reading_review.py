"""One endorsement's reading laid out for a lead to check before confirming it (the review page's
/endorsements/NAME, policy/confirmations.py).

The reader (changes.py) reads phrases and will meet wording it has not seen, so a person checks
each change against what the endorsement prints: the endorsement's own sentence and page beside
the change, the form's clause it reaches with the form's words and the words in force after it,
the changes that reach no clause, and every stretch of the endorsement's text that no change
accounts for, so that a change the reader missed shows instead of vanishing. The digest is the
one a confirmation records: the page posts it back, so a reading that changed while the lead
looked is refused rather than confirmed unseen.

Which text a change covers is found in the page texts here, spacing aside; where a change's
words are not found as printed (a correction's words, say) it says so, and covers nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from claims_crew.policy.amend import EndorsementChanges, Unmatched, amend
from claims_crew.policy.changes import DONE, Change, ChangeKind
from claims_crew.policy.segment import Clause

if TYPE_CHECKING:
    from claims_crew.policy.library import PolicyLibrary


@dataclass(frozen=True, slots=True)
class ChangeReview:
    """One change as the lead checks it."""

    number: int  # from 1, as corrections name it
    kind: ChangeKind
    done: str  # what it does to its clause: "added", "replaced", …
    target: str  # as the endorsement names it
    within: str  # where the endorsement says the target lies, if it says
    page: int
    words: str  # the words it brings ("" for a delete)
    sentence: str  # the endorsement's sentence that states it; "" where not found
    found: bool  # whether its words (or, for a delete, its sentence) were found as printed
    clause: str | None  # the form's clause it reaches; None: none (see `unmatched`)
    form_words: str | None  # that clause's words in the form, its sub-clauses included
    in_force: str | None  # its words after the endorsement; None: deleted or set aside


@dataclass(frozen=True, slots=True)
class Uncovered:
    """Endorsement text that no change accounts for."""

    page: int
    text: str


@dataclass(frozen=True, slots=True)
class ReadingReview:
    endorsement: str
    title: str
    form: str
    digest: str  # the reading's digest, as a confirmation records it
    corrected: bool  # whether the changes are as the entry's corrections leave them
    changes: list[ChangeReview]
    unmatched: list[Unmatched]
    uncovered: list[Uncovered]


def review_reading(library: PolicyLibrary, name: str) -> ReadingReview:
    """Endorsement `name`'s reading as it reads now (PolicyError `unknown_endorsement` for a
    name policies/index.yaml does not list), applied to its form alone."""
    found = library.reading(name)
    entry = library.endorsements[name]
    listed = found.corrected if found.corrected is not None else found.read
    changes = [change for change, _ in listed]
    form = library.open(entry.form, unreviewed_ocr=True).clauses
    amended = amend(form, [EndorsementChanges(name, entry.title, date.min, changes)])
    pages = [" ".join(page.split()) for page in found.pages]
    spans = [_where(pages, c) for c in changes]
    reviews = [
        ChangeReview(
            number=n,
            kind=c.kind,
            done=DONE[c.kind],
            target=c.target,
            within=c.within,
            page=c.page,
            words=c.text,
            sentence=_sentence(pages, c, span, spans),
            found=span is not None,
            clause=clause,
            form_words=None if clause is None else _words(form, clause),
            in_force=None if clause is None else _in_force(amended.clauses, form, clause, c),
        )
        for n, ((c, clause), span) in enumerate(zip(listed, spans, strict=True), start=1)
    ]
    covered = [s for s in spans if s is not None]
    for review, span in zip(reviews, spans, strict=True):
        if span is not None and (sentence := _lead_in(pages, review, span)) is not None:
            covered.append(sentence)
    return ReadingReview(
        endorsement=name,
        title=entry.title,
        form=found.form,
        digest=found.digest,
        corrected=found.corrected is not None,
        changes=reviews,
        unmatched=amended.unmatched,
        uncovered=uncovered(pages, covered),
    )


# (page index from 0, start, end) in the page's text with its spacing collapsed.
Span = tuple[int, int, int]


def _where(pages: Sequence[str], change: Change) -> Span | None:
    """Where a change's words are printed: on its own page first, then on any."""
    words = " ".join(change.text.split())
    if not words:
        return None
    order = [change.page - 1, *(i for i in range(len(pages)) if i != change.page - 1)]
    for i in order:
        if 0 <= i < len(pages) and (at := pages[i].find(words)) >= 0:
            return (i, at, at + len(words))
    return None


# A sentence ends at a colon, or at a full stop after a word (not after a label: "B. Exclusions",
# "8. Ride-Sharing" run on).
_END = re.compile(r"(?::|(?<=[a-z)”\"'])[.!?]|(?<=\d{3})\.)\s+")


def _lead_in_at(page: str, start: int, after: int) -> tuple[int, int]:
    """The sentence that ends just before `start`, no earlier than `after`: (start, end)."""
    before = page[after:start].rstrip()
    cut = 0
    for m in _END.finditer(before):
        if m.end() < len(before):
            cut = m.end()
    return (after + cut, after + len(before))


def _previous_end(spans: Sequence[Span | None], page: int, start: int) -> int:
    return max((s[2] for s in spans if s and s[0] == page and s[2] <= start), default=0)


def _sentence(
    pages: Sequence[str], change: Change, span: Span | None, spans: Sequence[Span | None]
) -> str:
    if span is None:
        return ""
    if change.kind == "not_apply":  # its words are the sentence that sets the clause aside
        return pages[span[0]][span[1] : span[2]]
    start, end = _lead_in_at(pages[span[0]], span[1], _previous_end(spans, span[0], span[1]))
    return pages[span[0]][start:end].strip()


def _lead_in(pages: Sequence[str], review: ChangeReview, span: Span) -> Span | None:
    """The span of a change's sentence, where it is apart from its words."""
    if not review.sentence or review.kind == "not_apply":
        return None
    at = pages[span[0]].rfind(review.sentence, 0, span[1] + 1)
    return None if at < 0 else (span[0], at, at + len(review.sentence))


def uncovered(pages: Sequence[str], covered: Sequence[Span]) -> list[Uncovered]:
    """Each stretch of the pages' text outside every covered span that has words in it."""
    out: list[Uncovered] = []
    for i, page in enumerate(pages):
        mine = sorted((s, e) for p, s, e in covered if p == i)
        at = 0
        for start, end in [*mine, (len(page), len(page))]:
            text = page[at:start].strip()
            if re.search(r"[^\W\d_]{2}", text):
                out.append(Uncovered(i + 1, text))
            at = max(at, end)
    return out


def _words(clauses: Sequence[Clause], clause_id: str) -> str | None:
    """A clause's words with those of every clause within it; None where there is no such."""
    inside: set[str] = set()
    lines: list[str] = []
    for clause in clauses:
        if clause.id == clause_id or clause.parent in inside:
            inside.add(clause.id)
            lines += [clause.text] if clause.text else []
        elif inside:
            break
    return "\n".join(lines) if inside else None


def _in_force(
    clauses: Sequence[Clause], form: Sequence[Clause], clause_id: str, change: Change
) -> str | None:
    # A deleted clause, or one set aside whole, stays in the tree so a lookup can say why; its
    # words are no longer in force.
    if change.kind == "delete" or (change.kind == "not_apply" and not change.qualified):
        return None
    if change.kind == "add":  # the clauses added under it, not the whole section again
        known = {c.id for c in form}
        added = [c.id for c in clauses if c.parent == clause_id and c.id not in known]
        return "\n".join(w for a in added if (w := _words(clauses, a))) or None
    return _words(clauses, clause_id)
