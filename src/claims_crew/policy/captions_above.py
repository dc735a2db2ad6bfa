"""The captions printed above an amendatory sentence that say which part of the form it is in.

ISO's personal-lines state amendatory endorsements (homeowners, personal auto) and AAIS forms
place a change by captions, not in its sentence: the part's caption in capitals, then the
coverage's or provision's caption, then the sentence with the clause's bare label --

    SECTION II – EXCLUSIONS
    E. Coverage E – Personal Liability And Coverage F – Medical Payments To Others
    Paragraph 1. Expected Or Intended Injury is replaced by the following:

Paragraph 1 is the one of Section II's coverages E and F; read without the captions it could be
any paragraph 1 of the form. So a reference that says nowhere where its clause lies gets the
captions above it as where it lies (changes.py). Read only where the lines right above the
sentence are captions (no sentence ends on them, at most four; a line naming the forms the
change applies to, "In Form HO 00 03:", is passed over), the top one a part of the form
named in capitals by its number ("SECTION II – …", "PART D – …"); anything else is no caption
run, and nothing is taken from it.
"""

from __future__ import annotations

import re

from claims_crew.policy.sentence_bounds import caps_line

# The part of the form, in capitals, by its number and caption: "SECTION II – LIABILITY".
_PART = re.compile(r"(?:SECTION|PART)\s+(?:[IVX]{1,4}|[A-Z]|\d{1,2})\s+[–—-]\s+[A-Z][A-Z ,'’&–—-]*")
# A caption below it: "E. Coverage E – Personal Liability …", "E. Additional Coverages",
# "CONDITIONS": title-cased words, a label first or not, no sentence punctuation.
_BELOW = re.compile(
    r"(?:(?:[A-Z]|\d{1,2})\.\s+)?[A-Z][\w'’-]*"
    r"(?:\s+(?:[A-Z][\w'’-]*|[–—-]|of|and|or|to|the|for|in|a|an|your|by))*"
)
# "In Form HO 00 03:", "Forms HO 00 02 And HO 00 08 Only": ISO's homeowners state endorsements
# say, among the captions, to which of the forms they amend the change applies.
_FORMS = re.compile(
    r"(?:In\s+)?Forms?\s+[A-Z]{2}\s\d\d\s\d\d(?:(?:\s*,\s*|\s+(?:And|and|Or|or)\s+)[A-Z]{2}\s\d\d\s\d\d)*"
    r"(?:\s+Only)?:?"
)
_MOST = 4


def captions_above(text: str, start: int) -> str:
    """The captions right above `start` (a line's start), top first and joined by ", ", where
    they run from a part of the form down; else ""."""
    lines: list[str] = []
    end = start - 1
    while end > 0 and len(lines) < _MOST:
        top = text.rfind("\n", 0, end) + 1
        line = " ".join(text[top:end].split())
        if _PART.fullmatch(line):
            return ", ".join([line, *reversed(lines)])
        if _FORMS.fullmatch(line):
            end = top - 1
            continue  # which forms it applies to: no part of where the clause lies
        if not line or not (caps_line(line) or _BELOW.fullmatch(line)) or len(line.split()) > 16:
            return ""
        lines.append(line)
        end = top - 1
    return ""
