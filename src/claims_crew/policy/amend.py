"""The wording in force: a form's clause tree with its endorsements' changes applied in order.

Pure functions over clauses: the library (library.py) reads the PDFs and hands the form's
clauses and each endorsement's changes in; what comes out is the clause tree a claim on that day
is decided on, each changed clause with an Amendment saying where its words come from and what
the form said before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from claims_crew.policy.changes import Change, ChangeKind


@dataclass(frozen=True, slots=True)
class Amendment:
    """Where a clause's words in force come from, when an endorsement changed the form's."""

    endorsement: str  # its form number, e.g. HM-E-07
    title: str  # the endorsement's title
    effective: date
    kind: ChangeKind
    pages: tuple[int, ...]  # the endorsement's pages the change is printed on
    # The form's words for the clause before the change (its sub-clauses included); None for a
    # clause the endorsement added.
    original: str | None

    def cited(self) -> str:
        """How a letter names it: "as amended by endorsement HM-E-07 (page 1)"."""
        pages = ", ".join(map(str, self.pages))
        word = "page" if len(self.pages) == 1 else "pages"
        verb = {"add": "added", "delete": "deleted", "not_apply": "set aside"}.get(
            self.kind, "amended"
        )
        return f"as {verb} by endorsement {self.endorsement} ({word} {pages})"


@dataclass(frozen=True, slots=True)
class Unmatched:
    """A change that could not be applied: its target is not a clause of the form (or a clause
    an earlier endorsement removed). Never dropped silently: `config check` and `policy tree`
    report it, and the clause tree is the form's for that change."""

    endorsement: str  # form number
    number: int  # the change's number in the endorsement's list, from 1
    change: Change
    why: str
