"""Which clause of a form an endorsement's change names, from the words it names it with.

The reader (change_targets.py) has already cut a printed reference down to its target; a target
may also come from a team's correction in index.yaml, written as they see it printed, so this
module still reads headings beside labels.

Endorsements name their targets as printed, often with the heading beside the label: "Clause
4.2(b)", "section 7", "Section II – Physical Damage Coverage, B. Exclusions", "Exclusion B.5.",
"Paragraph B.5. of Section II". Each part is cut to its label ("Section II", "B."), the labels
are joined outermost first, and the result is matched on the clause keys lookups use (ids.py).
A key that names no clause exactly may name one by its last parts ("B.5." for
"Section II.B.5"), but only when one clause alone fits: a change is never applied to a guess.

A target is a label, never a pattern. It reaches a clause whose id it is, character for
character; else each of its parts must be wholly a label as forms print them (letters and
digits joined by full stops and brackets: "4.2(b)", "A.2.a.(4)", "II"), with the word before it
("Clause", "Section", "Exclusion" …) and a heading after it, or words alone (a clause's title).
What is compared is fixed: case, spaces, the word before a label, a label's closing full stop,
and whether a lettered part is written "(b)", ".b" or "b". A part that is neither a label nor
words ("7.*|.*", "Clause 4\\.2", "[7]") names no clause by its label, for the keys would drop
its other characters and reach "7" or "4.2": it reaches only a clause titled with exactly those
words, if one alone is.

Pure functions over clauses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from claims_crew.policy.ids import KIND_WORDS, LEAD, OUTER_WORDS, clause_key
from claims_crew.policy.segment import Clause

# A label as printed: "4.2(b)", "B.5.", "II", "(c)", "7", "K."; what follows it is a heading.
_LABEL = re.compile(r"^\(?[A-Za-z0-9]{1,5}(?:[.()]{1,2}[A-Za-z0-9]{1,5})*[.)]?(?=\s|,|$)")
# Words alone, a heading or a title: letters, with spaces, apostrophes, hyphens, dashes and "&"
# between them and quotes around them ("Other Insurance", "Who Is An \"Insured\""), no digits.
_WORDS = re.compile(r"[^\W\d_]+(?:(?:\s+|\s*[&'’–—-]\s*)[^\W\d_]+)*\.?")
_QUOTES = re.compile(r"[\"“”]")
# "Paragraph B.5. of Section II": the part after "of" is the outer one.
_OF = re.compile(rf"\s+of\s+(?=(?:{OUTER_WORDS})\b)", re.I)
_FORMS = re.compile(r"\bforms?\W*$", re.IGNORECASE)
# A heading after the label: "Section II – Physical Damage Coverage".
_DASH_TITLE = re.compile(r"\s+[–—-]\s+.*$")


def target_parts(target: str) -> tuple[list[str], str | None]:
    """The label keys a target names, outermost first, and the clause kind its words name."""
    labels, kind, _ = _labels(target)
    return [k for k in map(clause_key, labels) if k], kind


def is_literal(target: str) -> bool:
    """Whether every part of a target is a label (with its word and heading) or words alone,
    so that comparing keys drops nothing but the normalisation the module docstring lists."""
    return _labels(target)[2]


def _words(text: str) -> bool:
    text = _QUOTES.sub("", text).strip(" –—-:")  # "SECTION II –": a heading's dash, alone
    return not text or _WORDS.fullmatch(text) is not None


def _labels(target: str) -> tuple[list[str], str | None, bool]:
    """The labels a target names as printed ("II", "B."), outermost first, its kind word, and
    whether each part was wholly a label or words (is_literal)."""
    pieces: list[str] = []
    for chunk in re.split(r"\s*[,;]\s*", target.strip()):
        pieces.extend(reversed(_OF.split(chunk)))
    labels: list[str] = []
    kind: str | None = None
    literal = True
    for piece in pieces:
        piece = _DASH_TITLE.sub("", piece.strip())
        lead = LEAD.match(piece)
        if lead is not None:
            for word in lead.group().lower().split():
                kind = KIND_WORDS.get(word, kind)
        rest = piece[lead.end() :] if lead is not None else piece
        rest = re.sub(r"(?<=\w)\s+(?=\(\w{1,4}\))", "", rest)  # "4.2 (b)" is "4.2(b)"
        label = _LABEL.match(rest)
        if label is not None:  # "B. Exclusions": the heading beside a label names its kind
            for word in rest[label.end() :].lower().split():
                kind = KIND_WORDS.get(word, kind)
        literal = literal and _words(rest[label.end() :] if label is not None else rest)
        # A piece that is all lead words ("Exclusions", "The Conditions") is a title.
        labels.append(label.group() if label is not None else rest or piece)
    return [label for label in labels if clause_key(label)], kind, literal


def id_form(labels: Sequence[str]) -> str:
    """Labels as the segmenter writes them in an id: "A.2.a.(4)" is "A.2(a)(4)", "B.5.d" is
    "B.5(d)": lower-case letters and bracketed items in brackets, the rest joined by dots."""
    out = ""
    for token in re.findall(r"\(?[A-Za-z0-9]+\)?", ".".join(labels)):
        bare = token.strip("()")
        if token.startswith("(") or bare.islower():
            out += f"({bare})"
        else:
            out += f".{bare}" if out else bare
    return out


def _ends_with(clause_id: str, form: str) -> bool:
    """Whether the id ends with these labels, whole ("A.1" is not the end of "A.2(a)(1)")."""
    if clause_id == form:
        return True
    if not clause_id.endswith(form):
        return False
    return form.startswith("(") or clause_id[-len(form) - 1] in "./ "


def find_target(target: str, clauses: Sequence[Clause], within: str = "") -> Clause | None:
    """The clause `target` names, or None when none or more than one could be meant.

    `within` is where the endorsement says the clause lies ("Section IV - Business Auto
    Conditions", "Loss Conditions"): a number several sections share ("B.5") is looked for
    inside it, and one that lies in a part this form does not have ("Common Policy
    Conditions", another form) is not this form's clause.
    """
    if (by_id := _by_id(target, clauses)) is not None:
        return by_id
    labels, kind, literal = _labels(target)
    if not literal:  # no label: only a clause titled with exactly these words
        titled = _titled(target, clauses)
        return titled[0] if len(titled) == 1 else None
    if not labels:
        return None
    wanted = "/".join(map(clause_key, labels))
    exact = [c for c in clauses if clause_key(c.id) == wanted]
    heading = _DASH_TITLE.search(target.strip())
    if len(exact) > 1 and heading is not None:
        # "Section I – Property Coverages": forms print several "Section I"s; the heading
        # tells which, and where it does not, none is guessed.
        words = heading.group().strip(" –—-").lower()
        titled = [c for c in exact if _title(c) == " ".join(words.split())]
        return titled[0] if len(titled) == 1 else None
    if exact:
        return _with_body(exact, clauses)
    by_label = [c for c in clauses if c.label and clause_key(c.label) == wanted]
    if len(by_label) == 1:
        return by_label[0]
    form = id_form(labels)
    tail = [c for c in clauses if _ends_with(c.id, form)] or _titled(target, clauses)
    # A `within` that names coverage forms ("… Business Auto Coverage Forms") names no part.
    if within and tail and not _FORMS.search(within):
        inside = _inside(within, clauses)
        tail = [c for c in tail if c.id in inside]
    if kind is not None and len(tail) > 1:
        tail = [c for c in tail if c.kind == kind] or tail
    return tail[0] if len(tail) == 1 else None


# "Section I~1": the first of several parts printed with one label, named as exactly as
# "Section I~2" names the second (the segmenter writes the first without its "~1").
_FIRST = re.compile(r"~1(?!\d)")


def _by_id(target: str, clauses: Sequence[Clause]) -> Clause | None:
    """The clause whose id `target` is, character for character. An id that is also how the
    form prints a label it prints more than once ("Section I" of the ISO forms' several
    "SECTION I"s) names the first only by its place in the file, so it is read as a label
    (find_target): a "~N" says which, and "~1" names the first."""
    plain = _FIRST.sub("", target)
    found = next((c for c in clauses if c.id == plain), None)
    if found is None or "~" in target:
        return found
    key = clause_key(found.id)
    return None if any(c is not found and clause_key(c.id) == key for c in clauses) else found


def _titled(words: str, clauses: Sequence[Clause]) -> list[Clause]:
    """The clauses headed by these words: "Other Insurance Condition" is the clause titled
    "Other Insurance", "General Conditions" the one titled so."""
    words = " ".join(re.sub(r"^the\s+", "", words.strip(), flags=re.I).lower().split())
    bare = re.sub(r"\s+(?:condition|exclusion|coverage|definition|provision)s?$", "", words)
    titled = [c for c in clauses if _title(c) == words]
    return titled or [c for c in clauses if _title(c) == bare]


def _title(clause: Clause) -> str:
    return " ".join(clause.title.lower().split()).strip(" .:")


def _inside(within: str, clauses: Sequence[Clause]) -> set[str]:
    """The ids of the clauses inside the part of the form `within` names, by its labels
    ("Section IV") or by its heading ("Loss Conditions"); several parts may be named ("Loss
    Conditions, Appraisal …", "Coverage Extensions in the Auto Dealers … Coverage Forms")."""
    scope: set[str] = set()
    for piece in re.split(r",\s*|\s+in\s+(?:the\s+)?", within):
        keys, _ = target_parts(piece)
        found = {c.id for c in clauses if keys and clause_key(c.id) == "/".join(keys)}
        scope |= found or {c.id for c in _titled(piece, clauses)}
    inside = set(scope)
    for clause in clauses:  # parents come before their children
        if clause.parent in inside:
            inside.add(clause.id)
    return inside


def _with_body(candidates: list[Clause], clauses: Sequence[Clause]) -> Clause | None:
    """The one clause of `candidates` (clauses sharing a label) that has a body, as lookups
    choose: a label printed twice is usually a contents line and the clause itself. Where
    several have one (the ISO forms print a "SECTION I" for each part), nothing tells which
    is meant, and none is guessed."""
    parents = {c.parent for c in clauses}
    with_body = [c for c in candidates if "\n" in c.text.strip() or c.id in parents]
    chosen = with_body or candidates
    return chosen[0] if len(chosen) == 1 else None
