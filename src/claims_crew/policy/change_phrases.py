"""Where an endorsement's standard amendatory phrases are, and the reference each one names.

The phrases, each with its variants (case and line breaks do not matter):

- replace: "X is (are) replaced by (with) the following", "X is deleted and replaced by", "X
  is amended (changed, revised, restated in its entirety, increased by …) to read as
  follows:", "X is replaced in its entirety by", "X, replaced by" (no "is"), "The following
  replaces X", "The following is substituted for X", "X is deleted [in its entirety] and the
  following is inserted (substituted)";
- delete: "X is (are) deleted" (not "… deleted and replaced"), "… in its entirety";
- add: "The following [exclusion, condition, paragraph, definition …] is (are) added [to,
  under, in X]", "… is inserted following (after, before, in) X", "X is amended (modified) by
  the addition of paragraph(s) …, as follows:", "X is changed by adding the following …:",
  "X is amended (extended) to add (include) the following:", "… to include as an additional
  insured", "Under X, the following is added:", "Title (Paragraph d.) is added under (to) X:",
  "The following are added, as "insureds," to X"; "Tlie"/"Tile" (OCR) is "The"; an exclusion
  of the whole policy in the endorsement's own words (own_exclusions.py) and a definition
  given anew (definition_phrases.py);
- not_apply: "X does (do) not apply" (whole), "X does not apply to …", "X applies only to …"
  (in part);
- own_exclusions.py and definition_phrases.py find an exclusion of the whole policy in the
  endorsement's own words and a definition given anew, which name no clause before a phrase;
- heading: "X is (are) changed (amended, modified, revised) [for …] [as follows]:", "The
  following revisions are made to X:" — the items listed under it hold the changes.

X before the phrase runs back to its sentence's or list item's start; X after it, to the colon
(or the sentence's end). A reference that is not the form's clause ("This exclusion does not
apply to …", "Paragraphs a. and b. above do not apply") is no change: X names a clause by a
number or by capitals, never the endorsement's own words (this, above, below, we). An opening
saying when the change applies ("For the purposes of this endorsement, …") is not part of X.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from claims_crew.policy.captions_above import captions_above
from claims_crew.policy.change_targets import ITEM_LABEL, NUMBER, plausible
from claims_crew.policy.definition_phrases import given_anew
from claims_crew.policy.line_shapes import successors
from claims_crew.policy.own_exclusions import REFERENCE as _WHOLE_POLICY_EXCLUSIONS
from claims_crew.policy.own_exclusions import found as _own_exclusions
from claims_crew.policy.references import OWN_LABEL, OWN_PART, own_paragraph
from claims_crew.policy.sentence_bounds import (
    MAX_REF,
    caps_line,
    is_boundary,
    reference_after,
    start_of_sentence,
    unit_start,
)

ItemKind = Literal["replace", "add", "delete", "not_apply", "heading"]

_F = re.IGNORECASE
_ENTIRETY = r"(?:\s+in\s+(?:its|their)\s+entirety)?"
_INSERTED = (
    _ENTIRETY + r"\s+and\s+the\s+following(?:\s+[\w-]+){0,3}?\s+(?:is|are|shall\s+be)\s+"
    r"(?:hereby\s+)?(?:inserted|substituted)(?:\s+(?:in\s+(?:its|their)\s+place|therefor))?\s*:?"
)
# A full stop that ends no sentence: before more text ("4.b"), or a letter's list label ("d., e.").
_DOT = r"\.(?=\S)|(?<=\W\w)\."
# Phrases printed after the reference: (kind, pattern).
_AFTER_REF: tuple[tuple[ItemKind, re.Pattern[str]], ...] = (
    (
        "replace",
        re.compile(
            # ", replaced by": real endorsements drop the "is" now and then (AU1001).
            r"(?:\s+(?:is|are|shall\s+be)|,)\s+(?:hereby\s+)?(?:deleted"
            + _ENTIRETY
            + r"\s+and\s+)?replaced"
            + _ENTIRETY
            + r"\s+(?:by|with)\b(?:\s+the\s+following)?\s*:?",
            _F,
        ),
    ),
    # "X is deleted in its entirety and the following is inserted:", "… deleted and the following
    # is substituted": insurers' own and state amendatory wording for new words in X's place.
    ("replace", re.compile(r"\s+(?:is|are|shall\s+be)\s+(?:hereby\s+)?deleted" + _INSERTED, _F)),
    # "X is amended (changed, revised) to read as follows:": state amendatory and AAIS wording.
    (
        "replace",
        re.compile(
            # "… is restated in its entirety to read:" (title insurers' conditions)
            r"\s+(?:is|are|shall\s+be)\s+(?:hereby\s+)?(?:amended|changed|revised|restated"
            # "the Sum Insured is increased by USD254,500 to read as follows:": a sum or limit
            # restated whole, the change of amount named first (London-market and schedule
            # endorsements)
            r"|(?:increased|decreased|reduced)\s+(?:by|from)\s+[^:;\n]{1,40}?)"
            + _ENTIRETY
            + r"\s+to\s+read"
            r"(?:\s+as\s+follows)?\s*:",
            _F,
        ),
    ),
    (
        "delete",
        re.compile(
            r"\s+(?:is|are|shall\s+be)\s+(?:hereby\s+)?deleted\b(?!"
            + _ENTIRETY
            + r"\s+and\s+replaced|"
            + _INSERTED
            + ")"
            + _ENTIRETY
            + r"(?:\s+from\s+(?:the|this)\s+(?:policy|coverage\s+form))?"
            # "… shall be deleted and the following exclusion shall apply:": new words in its place
            + r"(?P<also>\s+and\s+the\s+following(?:\s+[\w-]+){0,3}?\s+(?:is|are|shall)\s+"
            + r"(?:be\s+)?(?:added|apply|applies)\b)?\s*[.;:]?",
            _F,
        ),
    ),
    (
        "add",
        re.compile(
            # "Condition 1 … is further amended by adding …": a second change to one clause
            r"\s+(?:is|are|shall\s+be)\s+(?:hereby\s+|further\s+)?"
            # "Section 4 Exclusions is extended to include the following:" (London market)
            r"(?:amended|modified|changed|revised|supplemented|extended)"
            r"\s+(?:by\s+(?:the\s+)?(?:addition\s+of|adding)|to\s+(?:add|include))\b"
            # ISO's additional insured endorsements (CG 20 family): "Section II – Who Is An
            # Insured is amended to include as an additional insured …", the sentence itself
            r"(?:\s+(?=as\s+(?:an?\s+)?additional\s+insureds?\b)"
            r"|(?P<tail>(?:[^:.]|" + _DOT + r"){0,160}?):"
            # "FF. Incident is amended to add a Cyber Crime Incident.": the words added are the
            # sentence's own (claims-made forms widen a definition so); never past its end
            r"|(?=\s(?:[^:.]|" + _DOT + r"){1,160}?\.(?:\s|$)))",
            _F,
        ),
    ),
    ("not_apply", re.compile(r"\s+(?:does|do|shall)\s+not\s+apply\b(?P<to>\s+to\b)?", _F)),
    # "Paragraph a. of the Pollution Exclusion applies only to …": it does not apply otherwise.
    ("not_apply", re.compile(r"\s+(?:applies|apply)\s+only(?P<to>\s+to\b)", _F)),
    (
        "heading",
        re.compile(
            # "… are changed:", "The Conditions are changed for Auto Medical Payments as follows:"
            r"\s+(?:is|are)\s+(?:hereby\s+)?(?:changed|amended|modified|revised)"
            r"(?:\s+for\s+[^:.]{1,80}?)?(?:\s+as\s+follows)?\s*:",
            _F,
        ),
    ),
)
# "The exclusion set forth in Paragraph B. applies to all coverage under all forms and endorsements
# that comprise this Coverage Part": the words that follow are added to every part's exclusions.
_EVERY_PART = re.compile(
    r"\bexclusions?\b[^:;]{0,80}?\bappl(?:y|ies)\s+to\s+all\s+coverage\s+under\s+all\s+forms?\s+"
    r"and\s+endorsements\b[^.]*\.",
    _F,
)
_EVERY_PART_REFERENCE = "Exclusions under all forms and endorsements"
# "… is amended to include the following under item c.:": the addition goes under c of X.
_UNDER_ITEM = re.compile(
    r"\bunder\s+(?:item|paragraph|subparagraph|provision)\s+(\(?\w{1,4}\)?)\.?\s*$", _F
)
# Phrases printed before the reference (the reference may be absent: "is added:").
_BEFORE_REF: tuple[tuple[ItemKind, re.Pattern[str]], ...] = (
    (
        "add",
        re.compile(
            # OCR reads a scanned "h" as "li" or "il": "Tlie following", "Tile following"
            r"\bt(?:h|li|il)e\s+following(?:\s+(?!is\b|are\b)[\w'“”\x22-]+){0,6}?\s+(?:is|are)\s+(?:hereby\s+)?"
            # ", as "insureds," to …": additional-insured wording names what is added as first
            r"(?:added|inserted)\b(?:,\s+as\s+[^,:;.]{1,30},[\x22”]?)?"
            r"(?P<to>\s+(?:to|under|in|into|following|after|before)\b)?",
            _F,
        ),
    ),
    ("replace", re.compile(r"\bthe\s+following\s+(?:replaces|is\s+substituted\s+for)\b", _F)),
    # The active voice, the endorsement's own paragraph as subject (insurers' exclusion
    # endorsements): "Paragraph D. of this endorsement replaces exclusion a. of 2. Exclusions …",
    # "Paragraph E. of this endorsement is added to 2. Exclusions of Section I – Coverage B".
    ("replace", re.compile(OWN_PART + r"replaces\b", _F)),
    ("add", re.compile(OWN_PART + r"(?:is|are)\s+added(?P<to>\s+to)\b", _F)),
    (
        "heading",
        re.compile(
            r"\bthe\s+following\s+(?:revisions?|changes?|amendments?|modifications?)\s+"
            r"(?:is|are)\s+made\s+to\b",
            _F,
        ),
    ),
)
# "X is amended." before a "The following … is added:" that names no part: it names X.
_AMENDED = re.compile(
    r"\s+(?:is|are)\s+(?:hereby\s+)?(?:amended|changed|modified|revised)\.\s*$", _F
)
# A caption naming a part of the form, led by the endorsement's list label: "A. Section I –
# Property Coverages", "B. Exclusions". Title-cased words and dashes only, no sentence.
_CAPTION = re.compile(
    r"(?:[A-Z]|\d{1,2})\.\s+[A-Z][\w'’-]*"
    r"(?:\s+(?:[A-Z][\w'’-]*|[–—-]|of|and|or|to|the|for|in))*"
)
# A numbered part's caption as personal auto and homeowners forms print it, "Part IV - Damage to
# a Vehicle": a part's number and a dash first, so an endorsement's title is never one.
_PART_CAPTION = re.compile(
    r"(?:Section|Part)\s+(?:[IVX]{1,4}|[A-Z]|\d{1,2})\s+[–—-]\s+[A-Z][\w'’-]*"
    r"(?:\s+(?:[A-Z][\w'’-]*|of|and|or|to|a|an|the|for|in|your))*"
)
# "Under Paragraph C. … of SECTION I — COVERED AUTOS, the following is added:" (ISO's and
# insurers' placing of an addition): the part the addition goes under, printed before the phrase.
_UNDER_LEAD = re.compile(r"(?m)^(?:[A-Za-z]\.\s+)?under\s+", re.I)
# "The Insuring Agreement—Trip Interruption Coverage is added under Part V—Roadside …:": a title
# (title-cased words, never "Paragraph E. of this endorsement") added where it says.
_TITLE_ADDED = re.compile(r"\s+(?:is|are)\s+(?:hereby\s+)?added\s+(?:to|under|in)\s+", re.I)
_TITLE = re.compile(  # or a new labelled paragraph: "Subparagraph d. is added to …"
    r"(?:Sub-?)?[Pp]aragraphs?\s+(?:[a-z]|\d{1,2}|\([a-z0-9]{1,3}\))\.?"
    r"|(?:The\s+)?[A-Z][\w'’]*(?:(?:\s+|\s*[–—-]\s*)(?:[A-Z][\w'’]*|of|and|or|to|for|the|in)){0,9}"
)
# A part of the form named in capitals just before the phrase, on its line: "DEFINITIONS",
# "SECTION II – EXCLUSIONS"; only the names of a form's parts, never an endorsement's title.
_PART_IN_CAPITALS = re.compile(
    r"(?:^|(?<=\s))((?:SECTION|PART)\s+(?:[IVX]{1,4}|\d{1,2})(?:\s+[–—-]\s+[A-Z ]{3,40}?)?"
    r"|(?:[A-Z]{3,}\s+){0,2}(?:DEFINITIONS|EXCLUSIONS|CONDITIONS))\s*$"
)
# An item's own list label, at the start of a line: "2.", "B.", "(c)".
_ITEM_LABEL = re.compile(r"(?m)^\s*(?:([A-Za-z]{1,4}|\d{1,2})\.|\((\w{1,3})\))\s")


@dataclass(frozen=True, slots=True)
class Item:
    """One phrase found: what kind, the reference as printed, and where it sits."""

    kind: ItemKind
    reference: str
    start: int  # where its list item begins (its label and caption included)
    phrase: int  # where the phrase itself begins (the page is this one's)
    end: int  # where its own words begin
    qualified: bool = False
    under: str = ""  # the clause of the reference the words go under ("under item c.")
    also_add: bool = False  # a delete whose words are added in its place
    caption: bool = False  # the reference is a caption the phrase is listed under
    own_words: str = ""  # the words of the endorsement's own paragraph the phrase brings in
    # An exclusion the endorsement states of the whole policy in its own words (own_exclusions.py):
    # 1 read anywhere outside another change's words, 2 under a sentence amending the policy.
    own_exclusion: int = 0
    captions: str = ""  # the captions above it naming its part (captions_above.py), or ""


def _item_label(text: str, item: Item) -> str:
    """The list label an item is printed under ("2" for "2. Exclusion …"), or ""."""
    labels = list(_ITEM_LABEL.finditer(text, item.start, item.phrase))
    return (labels[-1].group(1) or labels[-1].group(2)) if labels else ""


def _caption(text: str, pos: int) -> tuple[str, int] | None:
    """The part a "The following … is added:" at `pos` that names none is listed under, and
    where its item starts: the sentence "X is amended." before it, or a caption line above."""
    line_start = text.rfind("\n", 0, pos) + 1
    own = text[line_start:pos]
    cut = line_start if not own.strip() or ITEM_LABEL.fullmatch(own) else pos
    amended = _AMENDED.search(text, max(0, cut - MAX_REF), cut)
    if amended is not None:
        start = start_of_sentence(text, amended.start())
        if plausible(text[start : amended.start()]):
            return text[start : amended.start()], unit_start(text, start)
    part = _PART_IN_CAPITALS.search(text, line_start, cut)
    if part is not None:  # "DEFINITIONS The following is added:", as one run of text
        return part.group(1), part.start(1)
    if cut != line_start or line_start == 0:
        return None
    above = text.rfind("\n", 0, line_start - 1) + 1
    line = text[above : line_start - 1].strip()
    if (_CAPTION.fullmatch(line) or _PART_CAPTION.fullmatch(line)) and len(line.split()) <= 12:
        return line, above
    return None


def _found(text: str) -> list[Item]:
    items: list[Item] = []
    for m in _EVERY_PART.finditer(text):
        start = unit_start(text, start_of_sentence(text, m.start()))
        items.append(Item("add", _EVERY_PART_REFERENCE, start, m.start(), m.end()))
    for start, sentence, headed in _own_exclusions(text):
        items.append(
            Item(
                "add", _WHOLE_POLICY_EXCLUSIONS, start, sentence, sentence, own_exclusion=1 + headed
            )
        )
    for kind, pattern in _AFTER_REF:
        for m in pattern.finditer(text):
            start = start_of_sentence(text, m.start())
            line_start = text.rfind("\n", 0, start) + 1
            if ITEM_LABEL.fullmatch(text[line_start:start]):
                start = line_start  # the label goes with it: "B. Exclusion 6." names B.6
            reference = text[start : m.start()]
            if plausible(reference):
                groups = m.groupdict()
                to = groups.get("to") is not None
                under = _UNDER_ITEM.search(groups.get("tail") or "")
                first = unit_start(text, start)
                items.append(
                    Item(
                        kind,
                        reference,
                        first,
                        m.start(),
                        m.end(),
                        to,
                        under=under.group(1) if under else "",
                        also_add=groups.get("also") is not None,
                    )
                )
    for kind, pattern in _BEFORE_REF:
        for m in pattern.finditer(text):
            reference, end = "", m.end()
            if "to" not in m.groupdict() or m.group("to") is not None:
                reference, end = reference_after(text, m.end())
                if re.match(r"\s*(?:and|or)\s", reference):
                    continue  # "added to and incorporated into the policy": no place named
                # "… is added to 2. Exclusions": a bare label there is the form's (ISO's print).
                if re.match(r"\s*(?:[A-Z]|\d{1,2})\.\s", reference):
                    reference = "Paragraph " + reference.lstrip()
            elif text[end : end + 2].strip()[:1] in (":", "."):
                end = text.index(text[end : end + 2].strip()[:1], end) + 1
            own = ""
            if (label := OWN_LABEL.search(m.group())) is not None:
                # "Paragraph D. of this endorsement replaces …": its own D., if printed; no guess.
                own = own_paragraph(text, label[1], end)
                if not own:
                    continue
            start = unit_start(text, start_of_sentence(text, m.start()))
            if not reference and (lead := _under_lead(text, m.start())):
                reference, start = lead
            caption = _caption(text, m.start()) if not reference else None
            if caption is not None:
                reference, start = caption
            items.append(
                Item(kind, reference, start, m.start(), end, caption=bool(caption), own_words=own)
            )
    for phrase, end, reference in given_anew(text):
        start = unit_start(text, start_of_sentence(text, phrase))
        items.append(Item("replace", reference, start, phrase, end))
    for m in _TITLE_ADDED.finditer(text):
        start = start_of_sentence(text, m.start())
        reference, end = reference_after(text, m.end())
        reference = re.sub(r"\s+as\s+follows$", "", reference, flags=_F)
        if (
            _TITLE.fullmatch(text[start : m.start()])
            and text[end - 1] == ":"
            and plausible(reference)
        ):
            items.append(Item("add", reference, unit_start(text, start), m.start(), end))
    return items


def _under_lead(text: str, pos: int) -> tuple[str, int] | None:
    """The part named by "Under X, " before a phrase at `pos`, and where its item starts; the
    words "Under" keeps when X is named by words only (change_targets: where it lies, first)."""
    leads = list(_UNDER_LEAD.finditer(text, max(0, pos - MAX_REF), pos))
    if not leads:
        return None
    words = text[leads[-1].end() : pos].rstrip()
    ends = [m.start() for m in re.finditer(r"[.:;](?=\s)", words)]
    if not words.endswith(",") or any(is_boundary(text, leads[-1].end() + e) for e in ends):
        return None
    words = words[:-1]
    numbered = any(NUMBER.fullmatch(w.strip(",;")) for w in words.split())
    reference = words if numbered else f"Under {words}"
    return (reference, unit_start(text, leads[-1].start())) if plausible(words) else None


def _below_captions(text: str, item: Item) -> int:
    """Where an item's own sentence begins: its line, below the captions in capitals that
    unit_start counted in the item."""
    at = text.rfind("\n", 0, item.start) + 1
    while at < item.phrase:
        end = text.find("\n", at, item.phrase)
        if end < 0 or not caps_line(text[at:end]):
            break
        at = end + 1
    return at


def items_in(text: str) -> list[Item]:
    """The phrases in an endorsement's stream (endorsement_pages.Stream.text), in order; where
    two overlap, the first printed stands."""
    kept: list[Item] = []
    found = [
        replace(i, captions=captions_above(text, _below_captions(text, i))) for i in _found(text)
    ]
    # The label of the last addition or replacement, while its words run on: a "does not apply"
    # inside them ("This exclusion does not apply to …", "The exclusion in Paragraph A. does not
    # apply to …") is those words, unless it opens the next item of the same list.
    words_of: str | None = None
    for item in sorted(found, key=lambda i: i.phrase):
        if kept and item.phrase < kept[-1].end:
            continue
        label = _item_label(text, item)
        inside = words_of is not None and label not in successors(words_of)
        if (item.kind == "not_apply" or item.own_exclusion == 1) and inside:
            continue
        kept.append(item)
        words_of = label if item.kind in ("add", "replace") else None
    return kept
