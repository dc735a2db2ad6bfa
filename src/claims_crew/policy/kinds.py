"""What kind of clause a clause is, read from its heading and its own words, with the reason.

The resolver's kind check trusts these kinds: "not covered" needs an exclusion, condition or
limit, "covered" needs a grant. So every clause gets a kind and a `kind_reason` that names the
rule that gave it, for a person checking the tree (and correcting it in policies/index.yaml).

A clause's own call comes, in order, from:

1. its heading's words, when it has a heading ("SECTION I – EXCLUSIONS", "Duties After Loss",
   "What is covered"): reason ``title: ...``;
2. explicit wording at the start of its own text ("We will not pay", "We cover", "'Auto'
   means", "You must", "The most we will pay"): reason ``words: '...'``.

A clause without a call of its own inherits its nearest ancestor's: reason ``inherited from ID
(...)``, and a clause with none anywhere above is ``other`` (``default``). Explicit wording beats
the inherited heading: "We do cover ..." under "Property Not Covered" is a grant. A few word
rules yield to what a heading says, because there they only explain it: "Earth Movement means"
under Exclusions is the exclusion's scope, not a definition, and "does not include" inside a
definition belongs to the definition.

Pure functions of a clause's title, its own text and its ancestors' calls: no I/O, and nothing
about the rest of the document, so a correction on top of these kinds changes only what it names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, NamedTuple, get_args

ClauseKind = Literal["grant", "exclusion", "condition", "limit", "definition", "other"]
CLAUSE_KINDS: tuple[ClauseKind, ...] = get_args(ClauseKind)

DEFAULT_REASON = "default"


class KindCall(NamedTuple):
    """A kind and the rule that gave it."""

    kind: ClauseKind
    reason: str


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: ClauseKind
    pattern: re.Pattern[str]
    # Inherited kinds this rule does not override: there the words explain the heading.
    yields_to: frozenset[ClauseKind] = frozenset()
    # It does not yield when its words open the clause: "We will not pay for ..." as the first
    # words is an exclusion wherever it stands; "If ..., we will not pay" explains a condition,
    # and so does "We do not provide coverage to an insured who concealed ...": a duty's
    # consequence for the person who breaks it.
    opening_wins: bool = False


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# --- headings ------------------------------------------------------------------------------

# A heading that is nothing but one of these is administrative, whatever section it sits in.
_OTHER_TITLE = _rx(
    r"^(?:(?:cancell?ation|non-?renewal|renewal)(?: of (?:this |the )?policy)?|premiums?\b.*"
    # Ending the contract ("Cancellation by You at any Time", "Cancellation and Termination of
    # Cover"), and the insurer's own timetable for settling a claim.
    r"|cancell?ation (?:by (?:you|us|the insured|the company|the insurer)|and termination)\b.*"
    r"|claims? settlement|settlement of claims?"
    r"|changes|financial responsibility|payment of benefits.*|to whom and when payment is made"
    r"|policy period|territory|currency|how to make a complaint|complaints?\b.*|privacy\b.*"
    r"|contact (?:us|details)|customer relations.*|free look.*|nomination|no claim discount.*"
    r"|statutory cancell?ation rights|non[- ]payment of premiums?|(?:territorial )?jurisdiction"
    r"|.*\bombudsman\b.*|.*\bjurisdiction\b.*|governing law|law (?:and|&) jurisdiction"
    # An address, a telephone line or a form's code printed at the foot of a section.
    r"|.*\b(?:telephone|tel|fax|e-?mail)\b.*|[A-Z0-9]{4,}\s*\(\d\d-\d\d\))$"
)
# Headings that name a kind outright, tried before the looser word list below.
_STRONG_TITLE: tuple[tuple[ClauseKind, re.Pattern[str]], ...] = (
    (
        "exclusion",
        _rx(
            r"^(?:we do not (?:cover|insure|pay)|we will not (?:cover|pay)|this insurance does not"
            r" apply|what is not covered|(?:general |special )?exceptions?\b)"
        ),
    ),
    ("grant", _rx(r"^(?:we (?:will )?(?:cover|insure)\b|what is covered|insuring agreements?\b)")),
)
_TITLE_WORDS: tuple[tuple[ClauseKind, re.Pattern[str]], ...] = (
    (
        "exclusion",
        _rx(
            r"exclu|not covered|we do not (?:cover|insure|pay)|we will not (?:cover|pay)"
            r"|will not pay|does not apply|won[’']t (?:cover|pay)|not insured|\bexceptions?\b"
            r"|\bno cover\b"
        ),
    ),
    ("definition", _rx(r"\bdefinitions?\b|\bdefinitons\b|meaning of words|glossary")),
    (
        "condition",
        _rx(
            r"\bconditions?\b|your duties|duties after|\bduty to\b|subrogation"
            r"|what (?:you|i) (?:must|should|need to) do"
            r"|what (?:must|should|do) (?:you|i) (?:need to )?do"
            r"|appraisal|action against|cooperation|proof of (?:claim|loss)|if we cannot agree"
            r"|trust agreement|\btransfer\b|assignment|claims? procedure"
            r"|making a claim|how to (?:make a )?claim|noti(?:ce|fication) of (?:claim|loss)"
        ),
    ),
    (
        "limit",
        _rx(
            r"\blimits?\b|deductibles?|\bexcess\b|sum insured|\bmaximum\b|\bsub-?limits?\b"
            r"|other insurance|benefit amount"
        ),
    ),
    (
        "grant",
        _rx(
            r"\bcover(?:ed|age|ages|s)?\b(?! parts?\b)|insuring agreement|perils insured"
            r"|\bbenefits?\b|we (?:will )?(?:cover|insure|pay)\b|additional payments|\binsurance$"
        ),
    ),
)


def heading_kind(title: str) -> KindCall | None:
    """The kind a heading's own words announce, or None."""
    clean = " ".join(title.replace("__", " ").split()).strip(" :–—-")
    if not clean:
        return None
    shown = _short(clean)
    if _OTHER_TITLE.match(clean):
        return KindCall("other", f"title: {shown}")
    for kind, pattern in (*_STRONG_TITLE, *_TITLE_WORDS):
        if pattern.search(clean):
            return KindCall(kind, f"title: {shown}")
    return None


def heading_like(title: str, rank: int) -> bool:
    """A keyword or unnumbered heading, or a numbered title written as a heading.

    "7.1 Seepage" and "C. Property Not Covered" are headings; "2. We do not cover land,
    including" and "(c) The most we will pay for:" are the start of a sentence, read as words.
    """
    if rank <= 1:
        return True
    words = title.replace("__", " ").split()
    if not words or len(words) > 6 or " means " in title:
        return False
    if title.endswith((".", ",", ";")) or not title[0].isupper():
        return False
    long_words = [w for w in words if w[0].isalpha() and len(w) >= 4]
    return all(w[0].isupper() for w in long_words if w.lower() not in _LOWER_IN_TITLES)


_LOWER_IN_TITLES = frozenset({"from", "into", "with", "than", "that", "this", "your", "what"})


# --- the clause's own words -----------------------------------------------------------------

_NOT = r"(?:not|n[’']t|no)"
_WE = r"(?:we|allstate|the company|the insurer|the policy|this policy|this insurance)"
_EXCEPT_FROM: frozenset[ClauseKind] = frozenset({"exclusion", "other", "definition"})
# Every rule is tried on the first sentence of the clause's own words; the match that starts
# first decides, and at one place the longer one ("we will pay no more than" is a limit, not a
# grant). A rule that yields to an inherited kind is skipped under it: there it only explains
# the heading.
_WORD_RULES: tuple[_Rule, ...] = (
    _Rule(
        "limit",
        _rx(
            rf"\b(?:the )?most {_WE} (?:will|shall) pay\b|\b{_WE} (?:will|shall) (?:only pay"
            rf"|pay (?:no more than|only|up to a maximum))\b|\b{_WE} (?:will|shall) {_NOT} pay "
            rf"more than\b|\b(?:is|are) the maximum\b|\bmaximum (?:we|amount|limit|benefit)\b"
            r"|^(?:our|any) payment (?:is|will be|shall be) (?:limited|based)\b"
            r"|\bsub[- ]?limits?\b|\bsection limit\b|\bco-?payment\b|\bdeductibles?\b"
            r"|\bmaximum depreciation\b"
            r"|\b(?:any )?one article\b|\bdoes not increase the limit"
            # Benefits that do not stack: "not be payable under more than one section".
            rf"|\b(?:{_WE} (?:will|shall) {_NOT} be liable|(?:will|shall) {_NOT} be payable)"
            r"(?: for [\w ]{1,20})? under more than one\b"
        ),
    ),
    # Limits named in passing ("up to the limits of liability") only decide at the start.
    _Rule(
        "limit",
        _rx(
            r"^(?:the |our |this |your )?(?:total |aggregate )?(?:limits? of (?:liability|insurance"
            r"|indemnity|cover)|limit shown|limit for\b)"
        ),
        yields_to=frozenset({"exclusion", "other", "definition"}),
    ),
    _Rule(
        "limit",
        _rx(r"^(?:the |an )?excess(?: of| is|\.|$)"),
        yields_to=frozenset({"other", "definition"}),
    ),
    # An exception to an exclusion gives cover back.
    _Rule(
        "grant",
        _rx(
            r"^(?:but |however,? )?(?:we do (?:cover|insure|pay)|this exclusion(?: [\w.()]+)?"
            rf" does {_NOT} apply)"
        ),
    ),
    _Rule(
        "exclusion",
        _rx(
            rf"\bwe (?:do|will|shall|can) {_NOT} (?:cover|insure)\b|\bwon[’']t (?:cover|insure)"
            rf"|\b(?:does|do|will|shall) {_NOT} cover\b"
            rf"|\b(?:(?:this|the) (?:policy|insurance|coverage)|coverages? [\w ,]{{1,20}})"
            rf" (?:does|do) {_NOT} apply\b"
            r"|\b(?:is|are) (?:specifically |hereby )?excluded\b|\bnot covered\b"
            r"|\bno (?:cover|coverage|benefit) (?:is|will be|shall be)\b|\bwe do not insure\b"
            r"|^excluding\b|\bthere is no\b[^.;]{0,60}\bcover\b|^(?:\w+ ){0,2}exclusions\b"
            r"|\bno (?:partial )?(?:loss|claim|benefit)s?(?: or damage)? (?:shall|will) "
            r"(?:be|become) payable"
        ),
    ),
    # "If a claim is fraudulent, we will not pay": under a condition, that is the condition.
    _Rule(
        "exclusion",
        _rx(
            rf"\b{_WE} (?:will|shall|can|may) {_NOT} (?:be liable|pay|provide|make any payment)\b"
            rf"|\bwe do {_NOT} (?:pay|provide)\b|\bwon[’']t pay\b|\brefuse to pay\b"
            r"|\bwill not be payable\b"
        ),
        yields_to=frozenset({"condition", "definition"}),
        opening_wins=True,
    ),
    _Rule(
        "exclusion",
        _rx(rf"\b(?:this (?:peril|coverage|insurance)|it) (?:does|do) {_NOT} include\b"),
        yields_to=frozenset({"definition"}),
    ),
    _Rule(
        "grant",
        _rx(
            rf"\b{_WE} (?:will|shall) (?:pay|cover|indemnify|reimburse)\b"
            r"|\bwe (?:cover|insure|indemnify)\b|\bwe will provide (?:the )?(?:insurance|cover)"
            r"|\b(?:the company|we) undertakes?\b|\byou (?:are|will be) covered\b"
            r"|\byou have cover\b"
            r"|\b(?:this section|this policy|the policy) provides (?:insurance|cover)\b"
            r"|\bare (?:automatically )?covered\b(?! by)"
            r"|\bthe policy (?:covers|is extended to cover)\b"
        ),
    ),
    _Rule(
        "condition",
        _rx(
            r"\bit is a condition\b|\bas a condition\b|\bconditions? precedent\b|^you must\b"
            # "Cover is subject to you taking …": a duty, even after a sentence-case title.
            r"|\b(?:(?:the |this |your )?(?:cover|insurance)|(?:any )?(?:payments?|claims?)) (?:is"
            r"|are) (?:subject to|conditional (?:up)?on) (?:your?|the insured|the policyholder)\b"
            # "c. Special Conditions applicable to ...", a heading written as an item's words.
            r"|^(?:special|specific|general|additional|standard|common|claims?) conditions\b"
            r"|\b(?:is|are|will be|shall be) (?:under (?:an |the )?obligations?|obliged)\b"
        ),
    ),
    # A telephone number or an address is how to reach someone, whatever section it ends.
    _Rule("other", _rx(r"\b(?:telephone|tel|phone|fax)\b\.?:?\s*\+?\(?\d")),
    _Rule(
        "condition",
        _rx(
            r"^(?:you|the insured|insured persons?|the insured person|any insured|all insured"
            r" \w+)(?:,? (?:if we ask|when we ask|as often as we ask),?)? (?:must|shall)\b"
            r"|^provided (?:always )?that\b|\bwithout our (?:prior )?(?:written )?consent\b"
            r"|\byou must\b|^(?:immediate )?notice\b"
            r"|^you (?:tell|notify|inform|report to|give) us\b"
        ),
        yields_to=_EXCEPT_FROM,
    ),
    # "'Auto' means ...": a defined term, unless it only says what an exclusion or a peril is.
    _Rule(
        "definition",
        _rx(
            r"^(?:[\"“”'‘’][^\"“”]{1,60}[\"“”'’]|(?!(?:this|that|it|such|which|if|when|where"
            r"|unless|whether|while)\b)"
            r"[A-Z][\w/&-]*(?: [\w/&()-]+){0,5})\s*(?:__\s*)?[:,]?\s*(?:shall )?"
            r"(?:means?|refers to|shall mean|is defined as|includes? and means)\b"
            r"|^as used in this (?:endorsement|policy|section|coverage form|coverage part)\b"
        ),
        yields_to=frozenset({"exclusion"}),
    ),
)
_CONDUCT = _rx(r"\b(?:to|for) (?:an?|any|the) [\"“]?(?:insured|person|one)[\"”]?(?: person)? who\b")
_OPENING_CHARS = 240
_SENTENCE_END = re.compile(r"(?<=[a-z)\"”’][.;:!?])\s|(?<=[.;:!?][\"”’)])\s")


def first_sentence(text: str) -> str:
    """The clause's words up to the end of the first sentence (or the first 240 characters)."""
    text = " ".join(text.replace("__", " ").split())[:_OPENING_CHARS]
    end = _SENTENCE_END.search(text)
    return text[: end.start()] if end else text


def words_kind(text: str, inherited: ClauseKind | None = None) -> KindCall | None:
    """The kind the clause's own opening words state explicitly, or None.

    `inherited` is the kind its headings give it; a rule that yields to that kind is skipped.
    """
    opening = first_sentence(text)
    # The first explicit wording decides: "insured persons must ... we will pay" is a duty.
    # At one place the longer wording wins: "we will pay no more than" is a limit.
    best: tuple[int, int, _Rule, str] | None = None
    for rule in _WORD_RULES:
        if inherited in rule.yields_to and not rule.opening_wins:
            continue
        if (m := rule.pattern.search(opening)) is not None:
            if inherited in rule.yields_to and (m.start() > 0 or _CONDUCT.search(opening)):
                continue
            key = (m.start(), -len(m.group()))
            if best is None or key < best[:2]:
                best = (*key, rule, m.group())
    if best is None:
        return None
    return KindCall(best[2].kind, f"words: {_short(best[3].strip())!r}")


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


# --- putting it together --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClauseWords:
    """What the kind rules read of one clause: its id, title, rank and own opening text."""

    id: str
    title: str
    rank: int  # 0 keyword heading, 1 unnumbered heading, 2 decimal, 3 enumerator, 4 bullet
    opening: str  # the clause's own text after its label, first lines joined
    closing: str = ""  # the last line of its own text


def own_call(clause: ClauseWords, inherited: KindCall | None) -> KindCall | None:
    """The call a clause makes itself: its heading first, then its opening words."""
    # Under a definitions heading, a heading is a defined term ("Excess", "Period of
    # Insurance"), not a section of that kind.
    under_definitions = (
        inherited is not None and inherited.kind == "definition" and len(clause.title.split()) <= 3
    )
    heading = clause.title and heading_like(clause.title, clause.rank) and not under_definitions
    if heading and (call := heading_kind(clause.title)) is not None:
        return call
    return words_kind(clause.opening, inherited.kind if inherited else None)


class Carried(NamedTuple):
    """The call a clause passes down: the clause that made it, and the call."""

    source: str
    call: KindCall


def settle(clause: ClauseWords, inherited: Carried | None) -> tuple[KindCall, Carried | None]:
    """A clause's kind and reason, and what it passes to its sub-clauses.

    `inherited` is what its parent passed down (None at the top of the tree).
    """
    own = own_call(clause, inherited.call if inherited else None)
    if own is not None:
        call, passed = own, Carried(clause.id, own)
    elif inherited is not None:
        source, carried = inherited
        call = KindCall(carried.kind, f"inherited from {source} ({carried.reason})")
        passed = inherited
    else:
        return KindCall("other", DEFAULT_REASON), None
    return call, _exceptions(clause, call.kind) or passed


# A clause that ends by opening a list of exceptions: "Anyone else while using a covered auto
# ... except:", "But this exclusion does not apply to liability for damages:".
_EXCEPT_LIST = _rx(r"\b(?:except|excepting|other than|with the exception of)(?: for)?\s*:$")
_GIVE_BACK_LIST = _rx(r"\bexclusions? (?:does|do) not apply\b[^.;:]{0,80}:$")
# A clause that ends with "The following are excluded:" (a definition's own carve-outs).
_EXCLUDED_LIST = _rx(r"\bthe following (?:are|is) (?:not covered|excluded)\s*[:–—-]?$")


def _exceptions(clause: ClauseWords, kind: ClauseKind) -> Carried | None:
    """What a clause that opens a list of exceptions passes to the items of that list.

    The exceptions to a grant take cover away; the exceptions to an exclusion give it back.
    """
    opening = " ".join(clause.opening.split())
    if (m := _GIVE_BACK_LIST.search(opening)) is not None:
        return Carried(clause.id, KindCall("grant", f"words: {_short(m.group())!r}"))
    closing = " ".join(clause.closing.split())
    if kind != "exclusion" and (m := _EXCLUDED_LIST.search(closing)) is not None:
        return Carried(clause.id, KindCall("exclusion", f"words: {_short(m.group())!r}"))
    flipped: dict[ClauseKind, ClauseKind] = {"grant": "exclusion", "exclusion": "grant"}
    if kind in flipped and (m := _EXCEPT_LIST.search(opening)) is not None:
        return Carried(clause.id, KindCall(flipped[kind], f"words: {_short(m.group())!r}"))
    return None
