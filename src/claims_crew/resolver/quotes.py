"""Quote matching: does an agent's quote occur in the text it cites, as one piece of it?

Models copy text with curly quotes, changed case, rejoined line-end hyphens and other spacing,
and shorten long passages with an ellipsis. None of that changes what the quote says, so both
sides are folded the same way before they are compared; anything else is a misquote.

An ellipsis is where a quote can lie without a false word: "The damage … 3 November 2025" joins
the start of one sentence to the date of another. So the fragments of an elided quote must lie
in one sentence of the text, and how far apart they may be there depends on what is quoted
(QuoteRule): a clause quote and a fact quote are held to different rules, each said below.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import Literal

_QUOTE_MARKS = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})
_LINE_HYPHEN = re.compile(r"(\w)-\s*\n\s*(\w)")
_SPACE = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
_EDGE = " \"'.,;:"

# Where a sentence may end: a full stop, question or exclamation mark (with any closing quote or
# bracket) before a capital or a digit; a blank line. `;` is added for prose (QuoteRule).
_STOP = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n[ \t]*\n\s*")
_SEMICOLON = re.compile(r";\s+")
# A full stop after one of these does not end the sentence: a list label (1. a. iv. B.), as
# policy wordings put between a list's lead-in and its items; a title before a name; a short
# month or a number's abbreviation before a figure (3 Nov. 2025, No. 4471).
_NOT_AN_END = re.compile(
    r"(?:^|[\s(])(?:\d{1,3}|[a-z]|[ivx]{1,4}|mrs?|ms|dr|st|prof|nos?|nr|ref|tel|approx"
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.$",
    re.IGNORECASE,
)

QuoteMiss = Literal["absent", "across_sentences", "wide_gap"]


@dataclass(frozen=True, slots=True)
class QuoteRule:
    """How a quote must sit in its text: what ends a sentence there, whether the whole quote
    must lie in one sentence or only the fragments of an elided one, how many words an ellipsis
    may leave out (None: any number within the sentence), and whether an ellipsis may join a
    list's lead-in (a sentence's words before a colon) to one later sentence, an item."""

    semicolon_ends_sentence: bool
    whole_in_one_sentence: bool
    max_gap_words: int | None
    lead_ins: bool

    def read(self, text: str) -> Passage:
        """The text folded and cut into sentences, once, for every quote matched against it."""
        sentences = tuple(_sentences(text, self.semicolon_ends_sentence))
        return Passage(self, sentences, " ".join(sentences))


# A clause is cited as a whole and judged by its kind; its quote shows where the agent read.
# "We do not cover loss caused by: … (c) failure or lack of grout" is a true reading of a list,
# however many items lie between, and whether the items end in ";" (one long sentence) or in
# "." (as many real wordings end them). So an elision may skip any part of a sentence, or join
# a lead-in to one later sentence; it never joins two sentences otherwise. (Text alone does not
# tell where a nested list ends, so a lead-in may still be joined to an item of the list around
# it; the clause's kind, not its quote, is what decides.) A verbatim quote may run across
# sentences: every word of it is the clause's, in the clause's order.
CLAUSE_QUOTES = QuoteRule(
    semicolon_ends_sentence=False, whole_in_one_sentence=False, max_gap_words=None, lead_ins=True
)
# A fact's quote is the only evidence of what the claimant said, and is read for a date or an
# amount and the word that says which fact it is (fact_sources.py): both must come from one
# statement. So the whole quote lies in one sentence, a semicolon ends one (in prose it joins
# two statements), and an ellipsis may skip only a few words: an aside, not another event.
FACT_QUOTES = QuoteRule(
    semicolon_ends_sentence=True, whole_in_one_sentence=True, max_gap_words=6, lead_ins=False
)


@dataclass(frozen=True, slots=True)
class Passage:
    """A text as quotes are matched against it: folded, in sentences, under one QuoteRule."""

    rule: QuoteRule
    sentences: tuple[str, ...]
    whole: str  # the sentences joined: fold(text)


def fold(text: str) -> str:
    """Text reduced for quote matching: case, curly quotes, line-end hyphens and spacing."""
    return _SPACE.sub(" ", _unbroken(text)).strip().lower()


def _unbroken(text: str) -> str:
    return _LINE_HYPHEN.sub(r"\1\2", text.translate(_QUOTE_MARKS))


def _sentences(text: str, at_semicolons: bool) -> list[str]:
    """The text's sentences, each folded; joined by spaces they are fold(text)."""
    text = _unbroken(text)
    cuts = [0]
    for stop in _STOP.finditer(text):
        end = stop.start() + 1
        # The word before the stop is at most 7 characters long when it is one of the exceptions.
        if text[end - 1] == "." and _NOT_AN_END.search(text, max(0, end - 9), end):
            continue
        cuts.append(stop.end())
    if at_semicolons:
        cuts.extend(m.end() for m in _SEMICOLON.finditer(text))
    cuts = sorted(set(cuts))
    pieces = (text[a:b] for a, b in zip(cuts, [*cuts[1:], len(text)], strict=True))
    return [folded for p in pieces if (folded := _SPACE.sub(" ", p).strip().lower())]


def quote_in(quote: str, passage: Passage) -> bool:
    """The quote occurs in the text as its rule allows; "a … b" means a, then b, in one
    sentence."""
    return quote_miss(quote, passage) is None


def quote_miss(quote: str, passage: Passage) -> QuoteMiss | None:
    """Why the quote does not occur in the text as its rule allows; None when it does.
    absent: its words are not there in that order; across_sentences: they are, but not within
    one sentence; wide_gap: within one, but an ellipsis leaves out more words than allowed."""
    parts = [p.strip(_EDGE) for p in _ELLIPSIS.split(fold(quote))]
    parts = [p for p in parts if p]
    if not parts:
        return "absent"
    rule = passage.rule
    if len(parts) == 1 and not rule.whole_in_one_sentence:
        return None if parts[0] in passage.whole else "absent"
    if any(_placed(parts, s, rule.max_gap_words) for s in passage.sentences):
        return None
    if rule.lead_ins and _after_lead_in(parts, passage.sentences):
        return None
    if rule.max_gap_words is not None and any(_placed(parts, s) for s in passage.sentences):
        return "wide_gap"
    return "across_sentences" if _placed(parts, passage.whole) else "absent"


def quoted_sentence(quote: str, passage: Passage) -> tuple[str, int] | None:
    """The folded sentence of the passage a quote lies in (as quote_miss finds it), and where
    the quote begins in it; None when it lies in no one sentence."""
    parts = [p.strip(_EDGE) for p in _ELLIPSIS.split(fold(quote))]
    parts = [p for p in parts if p]
    for sentence in passage.sentences if parts else ():
        if _placed(parts, sentence, passage.rule.max_gap_words):
            return sentence, sentence.find(parts[0])
    return None


def _after_lead_in(parts: list[str], sentences: tuple[str, ...]) -> bool:
    """The first parts lie in a lead-in (a sentence's words before its last colon) and the rest
    in one sentence after it."""
    for k in range(1, len(parts)):
        head, tail = parts[:k], parts[k:]
        items = [i for i, s in enumerate(sentences) if _placed(tail, s)]
        if items and any(
            ":" in s and _placed(head, s[: s.rindex(":")]) for s in sentences[: items[-1]]
        ):
            return True
    return False


def _placed(parts: list[str], text: str, max_gap: int | None = None) -> bool:
    """The parts occur in `text` in this order, each after the first at most `max_gap` words
    after the one before."""
    if max_gap is None:  # the earliest place of each part is then the best one
        at = 0
        for part in parts:
            if (found := text.find(part, at)) < 0:
                return False
            at = found + len(part)
        return True
    # With a limit a later place may leave the next part near enough, so every place is kept;
    # each place of a part needs only the nearest end before it. Work grows with parts × places,
    # never places ** parts, whatever quote a model sends.
    words = _word_counts(text)
    ends = [found + len(parts[0]) for found in _places(parts[0], text)]
    for part in parts[1:]:
        reached = []
        for found in _places(part, text):
            nearest = bisect_right(ends, found) - 1
            if nearest >= 0 and _words_between(text, words, ends[nearest], found) <= max_gap:
                reached.append(found + len(part))
        if not reached:
            return False
        ends = reached
    return bool(ends)


def _places(part: str, text: str) -> Iterator[int]:
    found = text.find(part)
    while found >= 0:
        yield found
        found = text.find(part, found + 1)


def _word_counts(text: str) -> list[int]:
    """counts[i]: how many words start before position i."""
    starts = (c != " " and (i == 0 or text[i - 1] == " ") for i, c in enumerate(text))
    return [0, *accumulate(starts)]


def _words_between(text: str, counts: list[int], at: int, found: int) -> int:
    """len(text[at:found].split()) in constant time (text is folded: single spaces)."""
    if found <= at:
        return 0
    partial = 1 if text[at] != " " and at > 0 and text[at - 1] != " " else 0
    return counts[found] - counts[at] + partial
