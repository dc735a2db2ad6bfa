"""Changes to a form's definitions that name no part of the form: a definition is printed in one
place, the form's definitions, so the change is placed there.

- "The following definition is amended [as it relates to covered equipment]: 2. "Accident"
  means …" (homeowners and insurers' own amendatory endorsements): the definition is given anew,
  whole, so it replaces the one the form gives; the term it defines, printed at the start of the
  words, is the clause. One definition only: "The following definitions are amended:" lists
  several, whose words each end where the next begins, which is left unread.
- "The following definition(s) is (are) added:" with no part named and no heading above it:
  added to the form's Definitions (changes.py; a form prints its definitions in one part, ISO's
  "SECTION V – DEFINITIONS", a homeowners form's "DEFINITIONS").
"""

from __future__ import annotations

import re

_F = re.IGNORECASE
_GIVEN_ANEW = re.compile(
    r"\bt(?:h|li|il)e\s+following\s+definition\s+is\s+(?:hereby\s+)?"
    r"(?:amended|replaced|revised|changed|restated)\b"
    # "… as it relates to covered equipment", "… with respect to Coverage E": where it applies
    r"(?:\s+(?:as\s+it\s+relates\s+to|with\s+respect\s+to|for)\s+[^:.;]{1,80}?)?"
    r"(?:\s+(?:as\s+follows|to\s+read))?\s*:",
    _F,
)
# The definition given: its label, if printed, and the term, quoted or in capitals, then "means".
_DEFINITION = re.compile(
    r"\s*(?:(?:\d{1,2}|[a-z]|[A-Z]{1,2})\.\s+)?[\x22“]?"
    r"(?P<term>[A-Z][\w'’-]*(?:\s+[\w'’-]+){0,4}?)[\x22”]?\s+(?:means|includes)\b"
)
# "The following definition is added:", "The following definitions are added:"
ADDS_A_DEFINITION = re.compile(
    r"t(?:h|li|il)e\s+following\s+(?:new\s+)?definitions?\s+(?:is|are)\s+(?:hereby\s+)?added\s*:?$",
    _F,
)


def given_anew(text: str) -> list[tuple[int, int, str]]:
    """Each definition given anew: (phrase start, words start, reference), the reference
    naming the term under Definitions (change_targets.reduce_reference reads it)."""
    found = []
    for m in _GIVEN_ANEW.finditer(text):
        definition = _DEFINITION.match(text, m.end())
        if definition is not None:
            reference = f'Under Definitions, the definition of "{definition["term"]}"'
            found.append((m.start(), m.end(), reference))
    return found
