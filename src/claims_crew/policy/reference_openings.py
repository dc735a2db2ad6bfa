"""The openings an endorsement prints before the reference of a change, which say when, from
when or on what page the change applies and are no part of the clause's name (change_targets.py
reads the reference after them): "For the purpose of this coverage, …", "With respect to …,",
"It is further agreed and understood that …", "with effect from 9 th July, 2015 …", "On Page 3,
…".
"""

from __future__ import annotations

import re

# An opening that says when the change applies, before the reference: "For the purpose of this
# coverage, Paragraph d. of B.5. …", "For temporary substitute … autos …, Paragraph C. …", at
# the start of the reference or of one of its lines (after a caption: "B. Changes In Definitions").
WHEN = re.compile(
    r"(?:^|(?<=\n))\s*(?:(?:[A-Za-z]|\d{1,2})\.\s+)?"
    # "With respect tothe …": extracted text joins a word to the next now and then
    r"(?:For|With respect to(?:the)?|As respects|As regards|In respect of)\b[^,]*,\s*"
)

# "It is further agreed and understood that …": how a London-market endorsement, or an insurer's
# own, opens the sentence that makes its change (own_exclusions.py reads it before a subject too).
AGREED_THAT = (
    r"it\s+is\s+(?:(?:further|hereby|also|noted|declared|understood)\s+(?:and\s+)?)*"
    r"(?:agreed|understood|noted|declared)(?:\s+and\s+(?:agreed|understood|declared))?\s+that\s+"
)
# The opening after the endorsement's caption in capitals, where a page is one run of text
# ("CONTRACT CHANGES It is understood and agreed that …").
_AGREED = re.compile(rf"^\s*(?:[A-Z][A-Z&'’-]+\s+){{0,8}}{AGREED_THAT}", re.I)


# "On Page 3, Definitions is modified …": insurers' own amendatory endorsements say on which
# page of the printed form the clause stands; the page is no part of the clause's name.
_ON_PAGE = re.compile(r"^\s*on\s+page\s+\d{1,3}\s*,\s*", re.I)


# "with effect from 9 th July, 2015", "with effect from inception": London-market endorsements
# say from when a change applies before naming what they change; a date is no clause.
_EFFECT_FROM = re.compile(
    r"^\s*with\s+effect\s+from\s+(?:(?:\d{1,2}\s*(?:st|nd|rd|th)?\s+)?[A-Z][a-z]+\s*"
    r"(?:\d{1,2}\s*)?,?\s*\d{4}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|(?:the\s+)?inception(?:\s+date)?)"
    r"\s*,?\s+",
    re.I,
)


def after_when(text: str) -> str:
    """The reference after an opening that says when the change applies."""
    text = _ON_PAGE.sub("", text)
    if agreed := _AGREED.match(text):
        text = text[agreed.end() :]
    text = _EFFECT_FROM.sub("", text, count=1)
    if agreed:
        text = text[:1].upper() + text[1:]  # "that for the machinery …, exclusions c and d"
    when = WHEN.search(text)
    return text[when.end() :] if when else text


# "In the Legal Action Against Us Condition, Paragraph 2. …", "With respect to the Cancellation
# Common Policy Condition, Paragraph 2. …": an opening that names a part of the form by its
# title, then the clause by its numbering word and label, places the clause (state amendatory
# endorsements word it so); it says where, not when. Title-cased words only, ending in what
# names a part ("Condition", "Section", "Exclusions" …), never the endorsement's own ("this").
_PART_OPENING = re.compile(
    r"^\s*(?i:in|with\s+respect\s+to|as\s+respects|as\s+regards|in\s+respect\s+of)\s+"
    r"(?:(?i:the)\s+)?(?P<part>(?:(?:[A-Z][\w'’-]*|of|and|to|the|in|[–—-])\s+){0,8}"
    r"(?:Conditions?|Section(?:\s+[IVX]{1,4})?|Exclusions|Definitions|Coverage\s+(?:Form|Part)"
    r"|Provisions?|Agreement))\s*,\s+"
    r"(?P<rest>(?i:(?:sub-?)?paragraphs?|exclusions?|items?|conditions?)\s+(?:\d|[A-Za-z]\.|\().*)$"
)


def part_opening(text: str) -> tuple[str, str] | None:
    """The part an opening names and the reference after it, or None."""
    found = _PART_OPENING.match(text)
    return (found["part"], found["rest"]) if found else None
