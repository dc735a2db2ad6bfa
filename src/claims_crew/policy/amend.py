"""The wording in force: a form's clause tree with its endorsements' changes applied in order.

Pure functions over clauses: the library (library.py) reads the PDFs and hands the form's
clauses and each endorsement's changes in; what comes out is the clause tree a claim on that day
is decided on, each changed clause with an Amendment saying where its words come from and what
the form said before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from claims_crew.policy.changes import DONE, Change, ChangeKind
from claims_crew.policy.kinds import DEFAULT_REASON, Carried, ClauseWords, KindCall, settle
from claims_crew.policy.line_shapes import short_title
from claims_crew.policy.segment import Clause, segment
from claims_crew.policy.target_clauses import find_target, is_literal


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

    def where(self) -> str:
        """The endorsement and its pages: "endorsement HM-E-07 (page 1)"."""
        pages = ", ".join(map(str, self.pages))
        word = "page" if len(self.pages) == 1 else "pages"
        return f"endorsement {self.endorsement} ({word} {pages})"

    def cited(self) -> str:
        """How a letter names it: "as amended by endorsement HM-E-07 (page 1)"; a replaced
        clause is "amended", the policyholder's word for it."""
        verb = "amended" if self.kind == "replace" else DONE[self.kind]
        return f"as {verb} by {self.where()}"


@dataclass(frozen=True, slots=True)
class Unmatched:
    """A change that could not be applied: its target is not a clause of the form (or a clause
    an earlier endorsement removed). Never dropped silently: `config check` and `policy tree`
    report it, and the clause tree is the form's for that change."""

    endorsement: str  # form number
    number: int  # the change's number in the endorsement's list, from 1
    change: Change
    why: str


@dataclass(frozen=True, slots=True)
class EndorsementChanges:
    """One endorsement in force, as the issued policy lists it, and the changes it makes."""

    endorsement: str  # its form number
    title: str
    effective: date
    changes: Sequence[Change]


@dataclass(frozen=True, slots=True)
class Amended:
    """The wording in force: the clause tree, what changed each clause, what was not applied."""

    clauses: list[Clause]
    amendments: dict[str, Amendment]
    unmatched: list[Unmatched]


def _no_deadline() -> None:
    pass


def amend(
    form_clauses: Sequence[Clause],
    in_force: Sequence[EndorsementChanges],
    check: Callable[[], None] = _no_deadline,
) -> Amended:
    """Apply each endorsement's changes, in the policy's order and each in its own order;
    `check` is called before each change and raises to stop (the reading deadline)."""
    tree = _Tree(list(form_clauses))
    unmatched: list[Unmatched] = []
    for entry in in_force:
        for number, change in enumerate(entry.changes, start=1):
            check()
            target = (
                find_target(change.target, tree.clauses, change.within) if change.target else None
            )
            if target is None:
                why = _why_unmatched(change.target)
                unmatched.append(Unmatched(entry.endorsement, number, change, why))
                continue
            tree.apply(entry, number, change, target)
    return Amended(tree.clauses, tree.amendments, unmatched)


def _why_unmatched(target: str) -> str:
    if not target:
        return "it names no clause"
    if not is_literal(target):  # "7.*|.*": never read as a pattern, nor cut down to "7"
        return f"{target!r} is not a clause label; a target is matched as printed"
    return f"the form has no clause {target!r}"


class _Tree:
    """The clause list being amended, and the amendments made so far."""

    def __init__(self, clauses: list[Clause]) -> None:
        self.clauses = clauses
        self.amendments: dict[str, Amendment] = {}
        self._form = list(clauses)
        self._originals: dict[str, str | None] = {}

    def _original(self, clause_id: str) -> str | None:
        """The form's full words for a clause (sub-clauses included); None if the form lacks it."""
        if clause_id not in self._originals:
            at = next((i for i, c in enumerate(self._form) if c.id == clause_id), None)
            self._originals[clause_id] = (
                None
                if at is None
                else "\n".join(c.text for c in _subtree(self._form, at) if c.text)
            )
        return self._originals[clause_id]

    def apply(self, entry: EndorsementChanges, number: int, change: Change, target: Clause) -> None:
        at = self.clauses.index(target)
        subtree = _subtree(self.clauses, at)
        if change.kind == "add":
            new_id = _added_id(change.text, target, entry.endorsement, number, self.clauses)
            added = graft(change.text, new_id, target.id, change.page, _passed_by(target))
            self.clauses[at + len(subtree) : at + len(subtree)] = added
            self._mark(added, entry, change, added=True)
            return
        if change.kind == "replace":
            parent = next((c for c in self.clauses if c.id == target.parent), None)
            new = graft(change.text, target.id, target.parent, change.page, _passed_by(parent))
            new[0] = new[0]._replace(label=target.label or new[0].label)
        elif change.kind == "not_apply" and change.qualified:
            new = [target._replace(text=f"{target.text}\n{change.text}".strip("\n")), *subtree[1:]]
        else:  # delete, or not_apply as a whole: the clause stays, so a lookup can say why
            words = change.text if change.kind == "not_apply" else ""
            new = [target._replace(text=words, pages=(change.page,))]
        for gone in subtree:
            self.amendments.pop(gone.id, None)
        self.clauses[at : at + len(subtree)] = new
        self._mark(new[:1] if change.kind != "replace" else new, entry, change, added=False)

    def _mark(
        self,
        clauses: Sequence[Clause],
        entry: EndorsementChanges,
        change: Change,
        added: bool,
    ) -> None:
        for clause in clauses:
            self.amendments[clause.id] = Amendment(
                entry.endorsement,
                entry.title,
                entry.effective,
                change.kind,
                (change.page,),
                None if added else self._original(clause.id),
            )


def _subtree(clauses: Sequence[Clause], at: int) -> list[Clause]:
    """The clause at `at` and every clause within it (they follow it in document order)."""
    inside = {clauses[at].id}
    out = [clauses[at]]
    for clause in clauses[at + 1 :]:
        if clause.parent not in inside:
            break
        inside.add(clause.id)
        out.append(clause)
    return out


# The label an endorsement's words open with: "7.12", "8.", "(b)", "B.", "iv.".
_LABEL = re.compile(
    r"^(?P<label>\d{1,2}(?:\.\d{1,3}){1,4}\.?|\((?:[a-z]{1,4}|[A-Z]|\d{1,3})\)|"
    r"(?:\d{1,3}|[A-Za-z]|[ivx]{1,5})[.)])(?:\s+(?P<rest>.*))?$"
)
_DECIMAL_ID = re.compile(r"\d{1,2}(?:\.\d{1,3}){1,4}")
_INHERITED = re.compile(r"^inherited from (?P<source>.+?) \((?P<reason>.*)\)$")


def _passed_by(clause: Clause | None) -> Carried | None:
    """What `clause` passes down to clauses under it, as the segmenter would have: its kind,
    named by the clause the kind comes from ("inherited from 7 (title: EXCLUSIONS)")."""
    if clause is None or clause.kind_reason in ("", DEFAULT_REASON):
        return None
    if m := _INHERITED.match(clause.kind_reason):
        return Carried(m["source"], KindCall(clause.kind, m["reason"]))
    return Carried(clause.id, KindCall(clause.kind, clause.kind_reason))


def _added_id(
    text: str, target: Clause, endorsement: str, number: int, tree: Sequence[Clause]
) -> str:
    """An added clause's id from its own label ("7.12", "8." under Section II.B), else one
    that names where it was added and by which change: "7/HM-E-09~1"."""
    m = _LABEL.match(text.strip().splitlines()[0].strip()) if text.strip() else None
    fallback = f"{target.id}/{endorsement}~{number}"
    if m is None:
        return fallback
    label = m["label"].rstrip(".")
    bare = label.strip("()")
    if _DECIMAL_ID.fullmatch(label):
        new_id = label
    elif label.startswith("(") or bare.islower():  # as the segmenter writes them: "A.1(d)"
        new_id = f"{target.id}({bare})"
    else:
        new_id = f"{target.id}.{bare}"
    return fallback if any(c.id == new_id for c in tree) else new_id


def graft(
    text: str, clause_id: str, parent: str | None, page: int, inherited: Carried | None
) -> list[Clause]:
    """An endorsement's words as clauses: the first, `clause_id`, holds its opening line (its
    label and heading) and the words before any sub-clause; the sub-clauses the segmenter finds
    in the rest are numbered under it, so "8.3" keeps its id and its items are "8.3(a)" on."""
    lines = text.strip("\n").splitlines() or [""]
    first = lines[0].strip()
    m = _LABEL.match(first)
    label = m["label"] if m else ""
    title = short_title((m["rest"] or "") if m else first)
    rank = 2 if _DECIMAL_ID.fullmatch(label.rstrip(".")) else (3 if label else 1)
    rest = segment(["\n".join(lines[1:])], None) if len(lines) > 1 else []
    own_lines = [first] + [c.text for c in rest if c.id == "preamble"]
    opening = " ".join(own_lines).removeprefix(label).strip().removeprefix(title).strip()
    call, passed = settle(ClauseWords(clause_id, title, rank, opening, own_lines[-1]), inherited)
    root = Clause(
        clause_id, label, title, call.kind, (page,), parent, "\n".join(own_lines), call.reason
    )
    nested = any(c.id != "preamble" for c in rest)
    subs = segment(["\n".join(lines[1:])], passed) if nested else []
    renamed: dict[str, str] = {}
    out = [root]
    for sub in subs:
        if sub.id == "preamble":
            continue
        up = renamed.get(sub.parent or "", clause_id)
        new_id = _sub_id(sub, up, renamed)
        renamed[sub.id] = new_id
        out.append(sub._replace(id=new_id, parent=up, pages=(page,)))
    return out


def _sub_id(sub: Clause, parent_id: str, renamed: dict[str, str]) -> str:
    if _DECIMAL_ID.fullmatch(sub.id):
        return sub.id  # a decimal number names its ancestors already
    if sub.parent is not None and sub.parent in renamed and sub.id.startswith(sub.parent):
        return parent_id + sub.id[len(sub.parent) :]
    if sub.id.startswith("("):
        return f"{parent_id}{sub.id}"
    if re.fullmatch(r"[A-Za-z0-9]{1,5}", sub.id):
        return f"{parent_id}.{sub.id}"
    return f"{parent_id}/{sub.id}"
