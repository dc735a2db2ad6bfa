"""Which clause of a form an endorsement's change names, from the words it names it with.

Endorsements name their targets as printed, often with the heading beside the label: "Clause
4.2(b)", "section 7", "Section II – Physical Damage Coverage, B. Exclusions", "Exclusion B.5.",
"Paragraph B.5. of Section II". Each part is cut to its label ("Section II", "B."), the labels
are joined outermost first, and the result is matched on the forgiving clause keys lookups use
(ids.py). A key that names no clause exactly may name one by its last parts ("B.5." for
"Section II.B.5"), but only when one clause alone fits: a change is never applied to a guess.

Pure functions over clauses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from claims_crew.policy.ids import clause_key
from claims_crew.policy.segment import Clause

# Words a target may be introduced by; the kind words also narrow an ambiguous match.
_KIND_WORDS = {
    "exclusion": "exclusion",
    "exclusions": "exclusion",
    "definition": "definition",
    "definitions": "definition",
    "condition": "condition",
    "conditions": "condition",
    "coverage": "grant",
    "limit": "limit",
}
_LEAD = re.compile(
    r"^(?:(?:the|section|sections|part|article|clause|paragraph|subparagraph|provision|item|"
    r"exclusion|exclusions|definition|definitions|condition|conditions|coverage|limit|"
    r"no\.?|number|§)\s*)+",
    re.IGNORECASE,
)
# A label as printed: "4.2(b)", "B.5.", "II", "(c)", "7", "K."; what follows it is a heading.
_LABEL = re.compile(r"^\(?[A-Za-z0-9]{1,5}(?:[.()]{1,2}[A-Za-z0-9]{1,5})*[.)]?(?=\s|,|$)")
# "Paragraph B.5. of Section II": the part after "of" is the outer one.
_OF = re.compile(r"\s+of\s+(?=(?:section|part|article|clause|paragraph|coverage)\b)", re.I)
# A heading after the label: "Section II – Physical Damage Coverage".
_DASH_TITLE = re.compile(r"\s+[–—-]\s+.*$")


def target_parts(target: str) -> tuple[list[str], str | None]:
    """The label keys a target names, outermost first, and the clause kind its words name."""
    pieces: list[str] = []
    for chunk in re.split(r"\s*[,;]\s*", target.strip()):
        pieces.extend(reversed(_OF.split(chunk)))
    keys: list[str] = []
    kind: str | None = None
    for piece in pieces:
        piece = _DASH_TITLE.sub("", piece.strip())
        lead = _LEAD.match(piece)
        if lead is not None:
            for word in lead.group().lower().split():
                kind = _KIND_WORDS.get(word, kind)
        rest = piece[lead.end() :] if lead is not None else piece
        rest = re.sub(r"(?<=\w)\s+(?=\(\w{1,4}\))", "", rest)  # "4.2 (b)" is "4.2(b)"
        label = _LABEL.match(rest)
        if label is not None:  # "B. Exclusions": the heading beside a label names its kind
            for word in rest[label.end() :].lower().split():
                kind = _KIND_WORDS.get(word, kind)
        key = clause_key(label.group() if label is not None else rest)
        if key:
            keys.append(key)
    return keys, kind


def find_target(target: str, clauses: Sequence[Clause]) -> Clause | None:
    """The clause `target` names, or None when none or more than one could be meant."""
    for clause in clauses:
        if clause.id == target:
            return clause
    keys, kind = target_parts(target)
    if not keys:
        return None
    wanted = "/".join(keys)
    keyed = [(clause_key(c.id), c) for c in clauses]
    exact = [c for key, c in keyed if key == wanted]
    if exact:
        return _with_body(exact, clauses)
    by_label = [c for c in clauses if c.label and clause_key(c.label) == wanted]
    if len(by_label) == 1:
        return by_label[0]
    tail = [c for key, c in keyed if key.endswith("/" + wanted)]
    if kind is not None and len(tail) > 1:
        tail = [c for c in tail if c.kind == kind]
    return tail[0] if len(tail) == 1 else None


def _with_body(candidates: list[Clause], clauses: Sequence[Clause]) -> Clause:
    # As lookups do: a label printed twice is usually a contents line and the clause itself.
    parents = {c.parent for c in clauses}
    with_body = [c for c in candidates if "\n" in c.text.strip() or c.id in parents]
    return (with_body or candidates)[0]
