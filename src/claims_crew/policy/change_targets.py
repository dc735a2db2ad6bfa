"""A clause reference as an endorsement prints it, reduced to what names the clause.

An endorsement names the clause it changes the way a lawyer would: "Coverage A.2.a.(4), Coverage
Extensions, Supplementary Payments", "Exclusion B.5., Fellow Employee", "Paragraph A.2.b. of the
Common Policy Conditions, Cancellation". The form's clause tree knows the clause by its number,
so the reduction keeps the number and sets the rest aside:

- a list label the endorsement puts before its own items ("c. Exclusion B.1. …") is dropped;
- the words up to the first " of ", " under " or " in " that does not go on with a number are
  the clause; what follows is where it lies (`within`: "Common Policy Conditions", "Section IV -
  Business Auto Conditions"), kept apart;
- in the clause, the number is the target, without the word before it (Coverage, Exclusion,
  Paragraph, Clause, Section …) or its final full stop: "A.2.a.(4)", "B.5", "A.2.b", "4.2(b)";
  a section numbered in Roman numerals or by a letter keeps its word, as forms print it
  ("Section II", "Part B"), and a number after it joins it ("Section II – Physical Damage
  Coverage, B. Exclusions" → "Section II.B"); an arabic section number stands alone
  ("section 7" → "7");
- "X of Y" where both are numbers is Y.X ("Paragraph (5) of a." → "a.(5)");
- "Paragraphs A.4. and A.5." are two targets, "A.4" and "A.5";
- "Exclusions 6., 14., 15. and 16." and "exclusions c and d" are each number of the list, and
  "Paragraphs a. through d." each label of the range;
- a reference with no number is its words ("Covered Autos Liability Coverage", "Other Insurance
  Condition"), less a leading "the"; one that only names a coverage form or the policy has no
  target ("") and is kept as `within`;
- "Under Property Coverages, Incidental Property Coverages, Trees, Plants, Shrubs, Or Lawns"
  (the way AAIS forms place a change) names the last of its parts; the parts before it are
  where it lies; "the definition of "actual cash value"" names the definition by its words;
- "Paragraph B. of the Out Of State Coverage Provision": the provision is where B lies;
- "Paragraph 2., Exclusions of Section I – Coverage A … and Paragraph 2., Exclusions of Section
  I – Coverage B …" is two references, each with its own container (reduce_references);
- "Who Is An Insured (Section II)", "Paragraph A. Coverage (SECTION II – LIABILITY COVERAGE)":
  the part in brackets, wherever it stands, is where the clause lies;
- "Paragraphs 5. b. and 5. c.": a label a line's spacing split is one label ("5.b", "5.c");
- not read (no target at all): a clause label that cannot be placed among the reference's other
  numbers ("SECTION 11 — LIABILITY COVERAGE — A.I."), a clause of another endorsement, a
  reference that names a part ("Section II") it does not keep in its target or `within`, and
  an entry of the Declarations or the Schedule, which are not clauses of the form; a part said to
  lie in its own paragraph, and a reference with a quotation opened or closed outside it (words
  of another column read across);
- "Section X. OTHER CONDITIONS, subsection A.", "CONDITIONS Section 6.8": the part named first is
  where the clause lies (references.part_first).

`plausible` tells whether printed words can be a reference at all (change_phrases.py asks).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from claims_crew.policy.ids import KEPT_WORDS, NUMBERING_WORDS
from claims_crew.policy.reference_openings import after_when, part_opening
from claims_crew.policy.references import (
    after_captions,
    caption_path,
    defined_term,
    inverted,
    part_first,
)

_PART = r"(?:\d+|[A-Za-z]|\([A-Za-z0-9]{1,4}\))"
# Past Z, lettered lists go on doubled ("AA.", "FF.", "JJ."): claims-made forms (cyber,
# professional liability) letter their definitions so.
_DOUBLED = "|".join(c + c for c in "ABCDEFGHJKLMNOPQRSTUWYZ")  # not II, VV, XX: Roman numerals
NUMBER = re.compile(
    rf"(?:\d+|[A-Za-z]|{_DOUBLED}|\([A-Za-z0-9]{{1,4}}\))(?:\.{_PART}|\([A-Za-z0-9]{{1,4}}\))*\.?"
)
ROMAN = re.compile(r"[IVX]{1,4}")
# An endorsement's own list label at the start of a reference or line: "e. ", "2. ", "iv. ",
# "(c) " (sentence_bounds.py finds list items by it too).
ITEM_LABEL = re.compile(r"^(?:(?:[A-Za-z]|\d{1,2}|[ivx]{1,4})\.|\(\w{1,3}\))\s*")
_LABEL = re.compile(r"^(?:[A-Za-z]|\d{1,2}|[ivx]{1,4}|\(\w{1,3}\))\.?\s+(?=\S)")
# Where a clause lies: "under …", "in …", "of the Common Policy Conditions", "of Section IV",
# but not the "of" of a title ("C. Limit of Insurance") or of a number ("(5) of a.").
_WHERE = re.compile(
    r",?\s+(?:(?:under|in)\s+(?:the\s+)?(?!\(|\d|[A-Za-z]\.)|of\s+(?:the\s+)?(?=(?i:section|part)\b"
    r"|(?:(?:[A-Z][\w'’-]*|of|and|the)\s+){0,6}(?i:conditions?|coverages?|forms?|polic(?:y|ies)|parts?"
    r"|declarations|exclusions?|definitions|sections?|provisions?|agreements?)\b))"
)
# "B. Exclusion 6.": a capital letter before "Exclusion" and a bare number is the form's lettered
# paragraph of exclusions (B. Exclusions), not the endorsement's own label.
_LETTERED_EXCLUSION = re.compile(r"^([A-Z])\.\s+(exclusion\s+)(\d+)\b", re.I)
_DOCUMENT = re.compile(r"(?:coverage\s+forms?|coverage\s+parts?|policy|policies)$", re.I)


@dataclass(frozen=True, slots=True)
class Reference:
    # One per clause named; ("",) when only a form or policy is named; () when the reference
    # cannot be reduced safely, and no change is read from it.
    targets: tuple[str, ...]
    within: str  # where the clause lies, as printed, or ""
    numbered: bool  # whether the clause is named by a number (else by words)
    printed: str = ""  # the clause's part of the reference as printed, its label and words


# "A.I.", "A.l.": OCR reads the digit 1 as a capital I or a small l. In ISO's outline a capital
# letter's paragraphs are numbered (A. → 1. → a.), never lettered by a Roman numeral, so an I or
# l right after a capital letter's full stop is the figure 1.
_OCR_ONE = re.compile(r"^([A-Z])\.[Il](?=$|[.(])")


def _number(token: str, before: str) -> str | None:
    """The clause number a token prints, or None; `before` is the word printed before it."""
    bare = token.strip(",;:")
    kind_word = before.lower() in NUMBERING_WORDS
    if ROMAN.fullmatch(bare.rstrip(".")):
        return f"{before.title()} {bare.rstrip('.')}" if before.lower() in KEPT_WORDS else None
    if not NUMBER.fullmatch(bare):
        return None
    number = _OCR_ONE.sub(r"\1.1", bare.rstrip("."))
    single_letter = len(number) == 1 and number.isalpha()
    if single_letter and not bare.endswith(".") and not kind_word:
        return None  # the article "a", a capital in a title
    if single_letter and number.isupper() and before.lower() in KEPT_WORDS:
        return f"{before.title()} {number}"
    return number


def _shape(number: str) -> tuple[str, ...]:
    """What a number is made of, part by part: "6" and "14" are alike, "A.4" and "B" are not."""
    return tuple("d" if p.isdigit() else "l" for p in re.findall(r"\w+", number))


def _span(first: str, last: str) -> list[str]:
    """The labels after `first` up to `last` in one list ("a" … "d", "A.2" … "A.4"), or [] where
    they are not two labels of one list: a range is read only where every label in it is sure."""
    head, _, a = first.rpartition(".")
    tail, _, b = last.rpartition(".")
    if head != tail:
        return []
    if a.isdigit() and b.isdigit() and int(a) < int(b) <= int(a) + 25:
        labels = [str(n) for n in range(int(a) + 1, int(b) + 1)]
    elif len(a) == len(b) == 1 and a.isalpha() and a.islower() == b.islower() and a < b:
        labels = [chr(c) for c in range(ord(a) + 1, ord(b) + 1)]
    else:
        return []
    return [f"{head}.{label}" if head else label for label in labels]


def _before(tokens: Sequence[str], i: int, found: Sequence[str], join: str) -> str:
    """The word that tells what token i is: the one printed before it, or, in a list ("exclusions
    c and d"), the numbering word that opened the list."""
    if found and join in ("and", "or", ",", "through", "thru"):
        for word in reversed(tokens[:i]):
            if word.lower().strip(",") in NUMBERING_WORDS:
                return word
    return tokens[i - 1] if i else ""


# "Paragraphs 5. b. and 5. c.": a justified or extracted line puts a space inside a label; a
# number followed at once by a label of the next level down (ISO's A. → 1. → a. → (1)), in a
# reference, is one label.
_SPACED_LABEL = re.compile(r"(?<![\w.])(\d{1,2}\.)\s+(?=[a-z]\.(?:\s|$))")


# What may stand between "of" and the number it says the clause lies in: "(5) of exclusion a.",
# "2. of the Condition C.".
_OF_GOES_ON = NUMBERING_WORDS | {"the", "–", "—", "-"}


def _targets(clause: str) -> list[str] | None:
    """The numbers a clause names, or None where it prints a clause label that cannot be placed
    among the others ("SECTION 11 — LIABILITY COVERAGE — A.I."): a guess there could reach the
    wrong clause, and a change not read shows as the endorsement's uncovered words instead. A
    bare letter that is only a word ("Hitting a Bird") is passed over, as before."""
    tokens = _SPACED_LABEL.sub(r"\1", clause).split()
    found: list[str] = []
    join = ""  # how the next number relates to the ones found: "and", "of", or ","
    last = -2  # where the last number was
    for i, token in enumerate(tokens):
        number = _number(token, _before(tokens, i, found, join))
        if number is None:
            word = token.lower()
            joins = ("and", "of", "or", "through", "thru")
            if join == "of" and word not in joins and word.strip(",;:") not in _OF_GOES_ON:
                # "Special Limits Of Liability Item 3.": the "of" of a title, not "3. of C."
                join = ""
            join = word if word in joins else ("," if token.endswith(",") else join)
            continue
        dashed = any(t in ("–", "—", "-") for t in tokens[last + 1 : i])
        if (last == i - 1 or dashed) and found[-1].split()[0] in ("Section", "Part"):
            # "Section II B. Exclusions" is "Section II, B. Exclusions", and so is ISO's caption
            # path "SECTION II – COVERED AUTOS LIABILITY COVERAGE – A.1. WHO IS AN INSURED"
            join = ","
        last = i
        if not found or join in ("and", "or"):
            found.append(number)
        elif join == "of":
            found = [f"{number}.{t}" for t in found]
        elif join in ("through", "thru") and (span := _span(found[-1], number)):
            found += span  # "Paragraphs a. through d.", "Exclusions 2. through 5."
        elif join == "," and found[-1].split()[0] in ("Section", "Part"):
            found[-1] = f"{found[-1]}.{number}"
        elif join == "," and _shape(number) == _shape(found[-1]):
            found.append(number)  # "Exclusions 6., 14., 15. and 16."
        elif "." in token or number.split()[0] in ("Section", "Part"):
            # A clause label ("A.I.", "B.") or a section ("… of BPM P 2—Section II") that
            # cannot be placed: not read
            return None
        join = "," if token.endswith(",") else ""
    return found


# "Under Definitions, the definition of …", "Under Property Coverages, Incidental Property
# Coverages, Trees, …": where the clause lies comes first, the clause last.
_UNDER = re.compile(r"^under\s+", re.I)
_DEFINITION_OF = re.compile(r"^(?:the\s+)?definition\s+of\s+", re.I)
_QUOTED_THEN_PART = re.compile(
    r"[\x22“](?P<term>[^\x22“”]{1,60})[\x22”]\s*,?\s+(?:in|of|under)\s+(?:the\s+)?(?P<part>.+)",
    re.I,
)


def _placed(text: str) -> tuple[str, str]:
    """Where the clause lies and the clause, from "A, B, C": C, unless C ends a series of
    one-word titles ("Trees, Plants, Shrubs, Or Lawns"), which is one title."""
    parts = [p.strip() for p in text.split(",")]
    last = len(parts) - 1
    if re.match(r"(?:or|and)\s", parts[last], re.I):
        while last > 0 and len(parts[last - 1].split()) == 1:
            last -= 1
    clause = re.sub(r"^the\s+", "", ", ".join(parts[last:]), flags=re.I)
    return ", ".join(p for p in parts[:last] if p), clause


# "… to 2. Exclusions of Section I – Coverage A … and Paragraph 2., Exclusions of Section I –
# Coverage B …" (ISO's exclusion endorsements, placed in two coverages at once): each reference
# after "and" that opens with its own numbering word and number is read on its own, with its
# own container.
_NEXT_REFERENCE = re.compile(
    r",?\s+and\s+(?=(?:paragraphs?|exclusions?|sections?|coverages?|parts?|provisions?)\s+"
    r"(?:\d|[A-Za-z]\.|\())",
    re.I,
)
# "Who Is An Insured (Section II)", "Paragraph A. Coverage (SECTION II – LIABILITY COVERAGE)":
# a part named in brackets after a clause is where it lies (insurers' own forms print their
# cross-references so), wherever in the reference it stands.
_IN_BRACKETS = re.compile(
    r"\s*\(((?:section|part)\s+(?:[IVX]{1,4}|\d{1,2}|[A-Z])(?:\s+[–—-]\s+[^()]{1,60})?)\)",
    re.I,
)
# A part of the form named by its Roman numeral or letter ("Section II", "PART B"). A reference
# that prints one must keep it, in its target or where the clause lies: the same label sits in
# several parts of a form ("C." under Section I and Section II), so a target whose part was
# lost could reach the wrong clause, and is not read.
_PART_NAMED = re.compile(r"\b(?i:section|part)\s+([IVX]{1,4}|[A-Z])\b")
# The Declarations and the endorsement's own Schedule are not clauses of the form: "The Named
# Insured shown in the Declarations is amended to include", "the premises shown in the
# Schedule". A change to them is a change to what was issued, which no change to the form's
# wording can state, so it is not read.
_NOT_THE_FORM = re.compile(r"\b(?:declarations?|schedule)\b", re.I)
# A clause of another endorsement ("Paragraph 2. Exclusions under the Miscellaneous Professional
# Liability Coverage endorsement"): not a clause of the form the reading applies to.
# ("… all forms and endorsements", the whole policy, is not one endorsement.)
_OF_AN_ENDORSEMENT = re.compile(r"\bendorsement$", re.I)


def _unbroken(printed: str) -> str:
    """The words a narrow column breaks at a line's end ("Para-\ngraph 2."), whole again."""
    return re.sub(r"(?<=[a-z])-\n\s*(?=[a-z])", "", printed)


def _parts_kept(clause: str, targets: Sequence[str], within: str) -> bool:
    """Whether every part of the form the clause names ("Section II") is kept, in a target or
    where the clause lies."""
    kept = " ".join([*targets, within]).casefold()
    return all(
        f"{word.group().split()[0]} {word.group(1)}".casefold() in kept
        for word in _PART_NAMED.finditer(clause)
    )


def reduce_references(printed: str) -> tuple[Reference, ...]:
    """The references a printed reference holds, each reduced: one, or one per "X of A and Y of
    B" where each part names its own container; a part is split off only when what it leaves
    behind names its container too, so "Paragraphs A.4. and A.5." stays one reference."""
    text = " ".join(_unbroken(printed).split())
    parts = _NEXT_REFERENCE.split(text)
    if len(parts) > 1 and all(_WHERE.search(p) for p in parts):
        return tuple(reduce_reference(p) for p in parts)
    return (reduce_reference(printed),)


def reduce_reference(printed: str) -> Reference:
    """The clause(s) a printed reference names, and where they lie."""
    text = " ".join(_unbroken(printed).split()).strip(' ,;:"“”')
    # Web and OCR'd copies join a dash to the words around it ("Part V—Roadside Assistance
    # Coverage", "SECTION II— WHO IS AN INSURED").
    text = re.sub(r"\s*([–—])\s*", r" \1 ", text)
    if sum(printed.count(q) for q in '"“”') % 2:
        # A quotation opened or closed outside the reference: its words run on into other text
        # (a second column read straight across), and no change is read from them.
        return Reference((), "", numbered=True, printed=text)
    if (named_first := part_first(text)) is not None:
        inner = reduce_reference(named_first[0])
        within = ", ".join(filter(None, (inner.within, named_first[1])))
        return Reference(inner.targets, within, inner.numbered, inner.printed)
    if (path := caption_path(text)) is not None:
        return Reference(path.targets, path.within, numbered=True, printed=text)
    if (headed := after_captions(text)) is not None:
        inner = reduce_reference(headed[0])
        within = ", ".join(filter(None, (inner.within, headed[1])))
        return Reference(inner.targets, within, inner.numbered, inner.printed)
    bracketed = _IN_BRACKETS.search(text)
    if bracketed:
        inner = reduce_reference(text[: bracketed.start()] + text[bracketed.end() :])
        within = ", ".join(filter(None, (inner.within, bracketed.group(1))))
        return Reference(inner.targets, within, inner.numbered, inner.printed)
    text = _LETTERED_EXCLUSION.sub(r"\2\1.\3", text, count=1)
    if (opened := part_opening(_LABEL.sub("", text, count=1))) is not None:
        inner = reduce_reference(opened[1])  # "In the … Condition, Paragraph 2."
        within = ", ".join(filter(None, (inner.within, opened[0])))
        return Reference(inner.targets, within, inner.numbered, inner.printed)
    text = after_when(_LABEL.sub("", text, count=1))
    text = re.sub(r"^the\s+", "", text, flags=re.I)
    if (defined := defined_term(text)) is not None:
        return Reference((defined[0],), defined[1], numbered=False)
    placed = ""
    if _UNDER.match(text) and "," in text:
        placed, text = _placed(_UNDER.sub("", text))
    if _DEFINITION_OF.match(text):
        words = _DEFINITION_OF.sub("", text)
        # 'The definition of "insured contract" in the Definitions Section' (ISO's CGL
        # endorsements): the quoted term is the clause, the part after it is where it lies
        if (quoted := _QUOTED_THEN_PART.fullmatch(words)) is not None:
            within = ", ".join(filter(None, (placed, quoted["part"].strip(" ,."))))
            return Reference((quoted["term"],), within, numbered=False)
        return Reference((words.strip(' "“”'),), placed, numbered=False)
    # Where the clause lies is told after its number: "the exclusion for … in sub-paragraph 3.a.
    # of B. Exclusions" lies in B, not in "sub-paragraph".
    tokens = list(re.finditer(r"\S+", text))
    first = next(
        (m for i, m in enumerate(tokens) if _number(m.group(), tokens[i - 1].group() if i else "")),
        None,
    )
    where = _WHERE.search(text, first.end() if first else 0)
    clause, within = (text[: where.start()], text[where.end() :]) if where else (text, "")
    within = ", ".join(filter(None, (placed, within.strip(" ,."))))
    targets = _targets(clause)
    if (
        targets is None
        or _OF_AN_ENDORSEMENT.search(within)
        or _NOT_THE_FORM.search(f"{clause} {within}")
        or not _parts_kept(clause, targets or [], within)
        or inverted(targets or [], within)
    ):
        return Reference((), within, numbered=True, printed=clause.strip(" ,."))  # not read
    if targets:
        return Reference(tuple(targets), within, numbered=True, printed=clause.strip(" ,."))
    clause = clause.strip(" ,.")
    if _DOCUMENT.search(clause):
        return Reference(("",), ", ".join(filter(None, (clause, within))), numbered=False)
    return Reference((clause,), within, numbered=False)


# Words that open an endorsement's own sentence rather than a reference to the form.
_NOT_A_REFERENCE = re.compile(
    r"^(?:this|that|these|those|it|its|such|any|each|every|no|if|we|you|your|our|they|there|"
    r"all|when|where|which|who|coverage\s+(?:under|for)\s+this)\b",
    re.I,
)
# Words that show a reference is to the endorsement's own text, not to the form's.
_OWN_WORDS = re.compile(r"\b(?:above|below|this|these|we|you|it)\b", re.I)
# A part of a clause told by its place, not its label ("the second paragraph", "the first
# sentence", "the preamble sentence of Section IX."): no change the reader states can reach it,
# and read as a change to the whole clause it would replace all of it, so it is left for a
# correction.
_PART_BY_PLACE = re.compile(
    r"\b(?:first|second|third|fourth|fifth|last|final|preamble|introductory|opening)"
    r"\s+(?:paragraph|sentence)s?\b",
    re.I,
)
# The form or policy the endorsement amends, named from within it: "of this Policy".
_THIS_POLICY = re.compile(
    r",?\s+(?:of|in|under|to)\s+this\s+(?:policy|coverage\s+(?:part|form))\b", re.I
)


def plausible(reference: str) -> bool:
    """Whether a printed reference can name a clause of the form: not the endorsement's own
    words, not a part told by its place, a number or words in capitals."""
    words = after_when(ITEM_LABEL.sub("", " ".join(after_when(reference).split()), count=1))
    words = re.sub(r"^the\s+", "", words, flags=re.I)
    if caption_path(words) is not None:
        return True  # a long list of clauses, each by label and title (references.py)
    if not words or _NOT_A_REFERENCE.match(words) or len(words.split()) > 30:
        return False
    if _PART_BY_PLACE.search(words):
        return False
    if _OWN_WORDS.search(_THIS_POLICY.sub("", words)):
        return False  # "Paragraphs a. and b. above", "C. Exclusions This insurance"
    has_number = any(NUMBER.fullmatch(w.strip(",;")) for w in words.split()[1:])
    return has_number or any(w[:1].isupper() for w in words.split())
