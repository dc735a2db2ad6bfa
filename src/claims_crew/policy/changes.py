"""An endorsement's changes to a policy form, as the endorsement's own words state them.

An endorsement "changes the policy" in a handful of standard amendatory phrases: a clause "is
replaced by the following", "the following exclusion is added" to a section, a paragraph "is
deleted", a provision "does not apply". Each becomes one Change: what kind of change, the clause
of the form it targets, and the words it brings.

`read_changes` reads them from the endorsement's page texts, a pure function over strings:

1. the pages become one stream without page furniture or boilerplate (endorsement_pages.py);
2. the phrases are found in it, each with the reference it names (change_phrases.py lists
   them and their variants);
3. each reference is reduced to what names the clause (change_targets.py): "Coverage
   A.2.a.(4), Coverage Extensions, Supplementary Payments" → "A.2.a.(4)"; "Exclusion B.5.,
   Fellow Employee" → "B.5"; "Paragraph A.2.b. of the Common Policy Conditions" → "A.2.b",
   with "Common Policy Conditions" kept apart as `within`; "Clause 4.2(b)" → "4.2(b)";
   "section 7" → "7"; "Section II – Physical Damage Coverage, B. Exclusions" → "Section II.B";
   "Paragraph d. of B.5." → "B.5.d"; "Paragraphs A.4. and A.5." → two changes; a clause named
   only by words keeps its words ("Covered Autos Liability Coverage");
4. a change's text runs from its phrase to the next change (or to the end of the heading it is
   listed under), without the next item's label or caption; a change listed under "X is
   changed as follows:" that names no clause of its own targets X, and one that names a clause
   has X as its `within`; a heading with no phrase under it is one "add" to X.

What the reader gets wrong a claims team corrects in policies/index.yaml (ChangeCorrection,
change_corrections.py), as it corrects clause kinds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from claims_crew.policy.change_phrases import Item, items_in
from claims_crew.policy.change_targets import Reference, reduce_reference, reduce_references
from claims_crew.policy.definition_phrases import ADDS_A_DEFINITION
from claims_crew.policy.endorsement_pages import stream_of, tidy
from claims_crew.policy.line_shapes import successors
from claims_crew.policy.own_exclusions import to_the_policy

# The version of the reading code (this module, change_phrases.py, change_targets.py): bump it
# whenever the rules would read the same words differently. It is part of every endorsement's
# reading digest (policy/confirmations.py), so a reading a person confirmed under the old rules
# is unconfirmed under the new ones until a person confirms it again; and wordings in force built
# under the old rules are rebuilt (in_force.py). 2: the phrase families of docs/policy-library.md
# ("Reading endorsements"), lists, placements, target words read whole. 3: one addition placed
# in two containers, "Under X, the following is added", titles added under a part, part captions,
# parts in brackets, caption paths, "amended to read", ranges ("a. through d."), and references
# that cannot be reduced safely left unread. 4: nothing guessed -- a change that names no clause,
# a reference whose stated part (Section II) was not kept, and the Declarations or Schedule are
# not read; parts in brackets anywhere; spaced labels ("5. b."); OCR'd section numerals. 5:
# references read by how they are built (references.py: caption paths listing several
# clauses, a labelled reference after its captions, definitions by term), "amended to add" with
# the words in the sentence, the active voice ("Paragraph D. of this endorsement replaces"),
# pages printed as one run of text, doubled letters ("FF.") as labels. 6: "deleted in its
# entirety and the following is inserted" is a replace; a part named before its clause ("Section
# X. OTHER CONDITIONS, subsection A.", "CONDITIONS Section 6.8") is where it lies; a heading's
# own part is kept under it; a part said to lie in a paragraph, a reference with a quotation
# opened outside it, and a part of a clause told by its place ("preamble sentence") not read;
# "restated in its entirety to read", "further amended by adding"; a reference begins at the
# line that opens with its clause's numbering word. 7: constructions of drafting families rather
# than of the sets: an exclusion stated of the whole policy in its own words (own_exclusions.py),
# "The following exclusion is added to this policy", definitions added or given anew with no
# part named (definition_phrases.py), the captions above a bare label (captions_above.py), pages
# that lost their spaces (run_together.py), a sentence ending on a quoted term, OCR's "A.I." for
# A.1, a part in figures before a dash and a label path, a sum "increased by … to read",
# "extended to include", "with effect from <date>", a definition's quoted term "in" its part.
READING_VERSION = 7

# replace: the target's text (and its sub-clauses) gives way to `text`;
# add: `text` is added under the target (a section, or a clause it extends);
# delete: the target is removed;
# not_apply: the target does not apply; `text` is the endorsement's sentence saying so, and
#   `qualified` says whether it applies only in part ("does not apply to …").
ChangeKind = Literal["replace", "add", "delete", "not_apply"]
CHANGE_KINDS: tuple[ChangeKind, ...] = get_args(ChangeKind)
# What each kind of change did to its clause, as the tree, the tool and a letter say it.
DONE: dict[ChangeKind, str] = {
    "replace": "replaced",
    "add": "added",
    "delete": "deleted",
    "not_apply": "set aside",
}


@dataclass(frozen=True, slots=True)
class Change:
    """One change an endorsement makes to the form."""

    kind: ChangeKind
    target: str  # the form's clause as the endorsement names it, e.g. "4.2(b)"; "" if unnamed
    text: str  # the words it brings (replace, add, not_apply); "" for delete
    page: int  # the endorsement's page it is printed on, from 1
    qualified: bool = False  # not_apply only: it applies in part ("does not apply to …")
    # Where the target lies, as printed, when the endorsement says: "Common Policy Conditions",
    # "Section IV - Business Auto Conditions", or the heading a change is listed under.
    within: str = ""


def _no_deadline() -> None:
    pass


def read_changes(pages: Sequence[str], check: Callable[[], None] = _no_deadline) -> list[Change]:
    """The changes an endorsement's page texts (page 1 first) state, in the order printed.

    `check` is called between steps and raises to stop the reading (the reading deadline,
    reading_deadline.py); a long endorsement has thousands of items."""
    stream = stream_of(pages)
    check()
    text = stream.text
    items = items_in(text)
    check()
    bounds = [item.start for item in items[1:]] + [len(text)]
    scopes = {
        i: _scope_end(text, item, items[i + 1 :])
        for i, item in enumerate(items)
        if item.kind == "heading"
    }
    changes: list[Change] = []
    for i, item in enumerate(items):
        check()
        heading = next((h for h, end in scopes.items() if h < i and item.start < end), None)
        end = min(bounds[i], scopes.get(heading, len(text)) if heading is not None else len(text))
        parent = reduce_reference(items[heading].reference) if heading is not None else None
        if item.kind != "heading":
            changes += _changes_of(
                item, text[item.phrase : end], stream.page_at(item.phrase), parent
            )
        elif not any(items[j].start < scopes[i] for j in range(i + 1, len(items))):
            # A heading with no phrase under it: its items are added to what it names.
            own = reduce_reference(item.reference)
            words = tidy(text[item.end : scopes[i]])
            page = stream.page_at(item.phrase)
            changes += [Change("add", t, words, page, within=own.within) for t in own.targets if t]
    return changes


def _scope_end(text: str, heading: Item, after: Sequence[Item]) -> int:
    """Where the items listed under a heading end: at the next heading, or at the next list
    label of the heading's own style ("C." after "B. … is changed as follows:")."""
    end = next((item.start for item in after if item.kind == "heading"), len(text))
    label = re.match(r"([A-Z]|[a-z]|\d{1,2})\.\s", text[heading.start : heading.phrase].lstrip())
    if label:
        # The next label in the heading's own sequence ("C." after "B.", "II." or "J." after
        # "I."), not any label of its style: "I. DEFINITIONS … amended as follows:" goes on
        # over its own "A.", "B.", "C.".
        after_it = "|".join(re.escape(n) for n in successors(label[1]))
        same = re.compile(rf"^(?:{after_it})\.\s", re.MULTILINE).search(text, heading.end, end)
        end = same.start() if same else end
    return end


def _changes_of(item: Item, said: str, page: int, parent: Reference | None) -> list[Change]:
    """The change(s) one phrase states; `said` runs from the phrase to the next one."""
    return [
        change
        for reference in reduce_references(item.reference)
        for change in _changes_to(item, reference, said, page, parent)
    ]


def _changes_to(
    item: Item, reference: Reference, said: str, page: int, parent: Reference | None
) -> list[Change]:
    """The change(s) one phrase states to one reference."""
    words = item.own_words or said[item.end - item.phrase :]
    if not reference.targets:
        return []  # a reference that cannot be reduced safely is not read
    # Listed under "Paragraph 4. of Section IV … is amended as follows:", a clause lies in 4 and
    # 4 in Section IV: the part the heading states is kept, never lost (a "Paragraph a." of
    # another part would be another clause).
    within = (
        reference.within
        or (", ".join(filter(None, (parent.within, *parent.targets))) if parent else "")
        or item.captions  # the captions above it, "SECTION II – EXCLUSIONS, E. Coverage E …"
    )
    targets = reference.targets
    if targets == ("",) and parent is not None:
        targets = parent.targets  # "The following condition is added to the Coverage Forms:"
    headed = re.search(r"\s[–—-]\s", item.reference)
    if (
        item.caption
        and headed
        and len(targets) == 1
        and re.fullmatch(r"(?:Section|Part) [IVX]+", targets[0])
    ):
        # "A. Section I – Property Coverages": forms print several "Section I"s, which their
        # headings tell apart (target_clauses.py), so the heading stays.
        targets = (re.sub(r"^\s*(?:[A-Z]|\d{1,2})\.\s+", "", " ".join(item.reference.split())),)
    if item.under:  # "Coverage B … is amended to include the following under item c.:"
        within = ", ".join(filter(None, (reference.within, reference.printed)))
        targets = (item.under.strip("()"),)
    targets = tuple(t for t in targets if t)
    if not targets and _adds_definitions(item, said):
        targets = ("Definitions",)  # a definition lies in the form's definitions, nowhere else
    if not targets and item.kind == "add" and to_the_policy(item_phrase(item, said), within):
        targets = ("Exclusions",)  # "The following exclusion is added to this policy:"
    if not targets:
        # "The following exclusion is added:" under no part, "… is added to the Coverage Form":
        # no clause is named, so no change to the form can be placed (amend.py would leave it
        # unmatched); its words stay the endorsement's uncovered text, for a person to place.
        return []
    kind = item.kind
    assert kind != "heading"  # read_changes hands headings' items over, not headings
    if kind == "delete":
        deleted = [Change(kind, t, "", page, within=within) for t in targets]
        place = re.sub(r"\s+of\s+the\s+polic(?:y|ies)$", "", reference.within, flags=re.I)
        if item.also_add and place:  # "… shall be deleted and the following exclusion shall apply"
            deleted.append(Change("add", place, tidy(words), page))
        return deleted
    if kind == "not_apply":
        # The endorsement's sentence saying so, less its list label.
        sentence = tidy(re.sub(r"^\s*(?:\w{1,3}\.|\(\w{1,3}\))\s+", "", item.reference + said))
        return [Change(kind, t, sentence, page, item.qualified, within) for t in targets]
    return [
        Change(kind, t, part, page, within=within)
        for t, part in zip(targets, _split(tidy(words), targets), strict=True)
    ]


def _adds_definitions(item: Item, said: str) -> bool:
    """Whether the phrase is "The following definition(s) is (are) added" (definition_phrases)."""
    return item.kind == "add" and bool(ADDS_A_DEFINITION.search(item_phrase(item, said)))


def item_phrase(item: Item, said: str) -> str:
    """The phrase itself, from the words said from it on."""
    return said[: item.end - item.phrase]


def _split(words: str, targets: Sequence[str]) -> list[str]:
    """One text per target: "Paragraphs A.4. and A.5. … are replaced by the following: 4. …
    5. …" gives A.4 the words from "4." and A.5 those from "5."."""
    parts: list[str] = []
    rest = words
    for target in targets[1:]:
        last = re.split(r"[.\s]", target)[-1]
        at = re.search(rf"(?m)^{re.escape(last)}\.?\s", rest)
        if at is None or at.start() == 0:
            return [words] + [""] * (len(targets) - 1)
        parts.append(rest[: at.start()].strip())
        rest = rest[at.start() :]
    return [*parts, rest.strip()]
