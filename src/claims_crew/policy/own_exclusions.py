"""An exclusion an endorsement states of the whole policy in its own words, naming no clause.

London-market clauses (LMA communicable disease, cyber, war, sanctions), insurers' own
stand-alone exclusion endorsements and personal-auto exclusion endorsements use no amendatory
phrase: their operative sentence has the policy, or its insurer, as subject and excludes --
"this policy does not insure any loss … arising out of …", "the insurance afforded by this
policy shall not apply with respect to any claim arising from …", "The insurer will not pay for
damage … caused by …", "The policy shall exclude:". What such a sentence does to the form is add
an exclusion to the policy's exclusions: one "add" to "Exclusions" of the policy, its words the
sentence and what follows it (amend.py places it where the form has one Exclusions part, and
leaves it unmatched, for a person, where the form has several).

Under a sentence that amends the policy as a whole ("The policy is additionally modified by this
endorsement, as follows:", "this policy is hereby amended as follows:"), the form's own voice
excludes too: "We will not pay for …", "This insurance does not apply to …".

After the London-market opening "Notwithstanding any provision to the contrary within this
insurance, …", "this insurance" is the policy too. "In consideration of the premium charged, it
is agreed that …" (insurers' own forms) may open the sentence, and "This policy is amended to
exclude …" says the same. "The following exclusion is added to this policy:" names the policy
as its place (changes.py reads it as an addition to its exclusions).

Not read: "This insurance does not apply to:" and "We will not pay" anywhere else. They are how
the words an ISO endorsement brings in are written, and how an endorsement that grants a
coverage of its own limits it; read there they would be inventions. A sentence whose subject is
the endorsement ("This endorsement shall not exclude …") or that opens with a condition ("If …,
this policy does not apply") or a coverage ("With respect to Coverage E, …") adds no exclusion
to the policy either. The sentence is read only outside the words another change brings in
(change_phrases.items_in sees to that).
"""

from __future__ import annotations

import re

from claims_crew.policy.reference_openings import AGREED_THAT
from claims_crew.policy.sentence_bounds import start_of_sentence, unit_start

# "The following exclusion is added to this policy:" (London-market and insurers' own wording):
# an addition to the policy as a whole, so to its exclusions (changes.py, where the reference
# names only the policy).
ADDS_AN_EXCLUSION = re.compile(
    r"t(?:h|li|il)e\s+following\s+(?:new\s+|additional\s+)?exclusions?\s+(?:is|are)\s+"
    r"(?:hereby\s+)?added\b",
    re.IGNORECASE,
)
_THE_POLICY = re.compile(r"(?:(?:this|the)\s+)?(?:insurance\s+)?polic(?:y|ies)", re.IGNORECASE)


def to_the_policy(phrase: str, within: str) -> bool:
    """Whether a phrase adds an exclusion to the policy as a whole ("… is added to this policy")."""
    return bool(ADDS_AN_EXCLUSION.match(phrase)) and bool(_THE_POLICY.fullmatch(within.strip()))


# What the reference of every such change reduces to (change_targets.reduce_reference): the
# exclusions of the policy, target "Exclusions", lying in "policy".
REFERENCE = "Exclusions of the policy"

_POLICY = (
    r"(?:(?:this|the)\s+(?:insurance\s+)?(?:policy|contract|certificate)"
    r"|the\s+(?:insurance|coverage|cover)\s+(?:afforded|provided|granted|given)\s+(?:by|under)\s+"
    r"(?:this|the)\s+(?:policy|contract|certificate)"
    r"|(?:the\s+)?(?:insurers?|underwriters|reinsurers?|company))"
)
_VOICE = r"(?:we|this\s+insurance)"
_EXCLUDES = (
    r"\s+(?:(?:does|do|shall|will)\s+not\s+(?:insure|cover|pay|indemnify|be\s+liable"
    r"|apply\s+(?:to|with\s+respect\s+to|in\s+respect\s+of)\b)|shall\s+exclude|excludes?"
    r"|(?:is|are)\s+not\s+liable|is\s+(?:hereby\s+)?amended\s+to\s+exclude)\b"
)
_F = re.IGNORECASE
_BY_POLICY = re.compile(rf"\b{_POLICY}{_EXCLUDES}", _F)
_IN_VOICE = re.compile(rf"\b(?:{_POLICY}|{_VOICE}){_EXCLUDES}", _F)
# What may stand before the subject in its sentence: nothing, a list label, "It is (noted and)
# agreed that", or the opening London-market clauses give their operative sentence
# ("Consequently and notwithstanding any other provision of this policy to the contrary, ").
_LEAD = re.compile(
    r"(?:(?:\d{1,2}(?:\.\d{1,2})*\.?|[a-z]\.|\(\w{1,3}\))\s+)?"
    # "In consideration of the premium charged, it is agreed that …" (insurers' own forms)
    r"(?:in\s+consideration\s+of\s+[^,.;:]{1,60},\s+)?"
    # LMA3030: "Notwithstanding any provision to the contrary within this insurance or any
    # endorsement thereto it is agreed that this insurance excludes …"
    r"(?:(?:(?:consequently|accordingly|nevertheless|however|furthermore|in\s+addition)"
    r"(?:\s+and)?\s+)?notwithstanding\b[^.;:]{0,160}?(?:,\s+|\s+(?=it\s+is\b)))?"
    rf"(?:{AGREED_THAT}"
    r"|(?:consequently|accordingly|nevertheless|however|furthermore|in\s+addition),\s+)?",
    _F,
)
# A sentence amending the policy as a whole, its words listed after the colon.
_WHOLE_POLICY = re.compile(
    r"\b(?:the|this|your)\s+policy\s+is\s+(?:hereby\s+)?(?:additionally\s+|further\s+|also\s+)?"
    r"(?:amended|modified|changed)(?:\s+by\s+this\s+endorsement)?,?\s+as\s+follows\s*:",
    _F,
)
# An amendatory phrase of another change listed under such a sentence.
_ANOTHER_CHANGE = re.compile(
    r"\b(?:is|are)\s+(?:hereby\s+)?(?:replaced|deleted|added|inserted|amended|changed|modified"
    r"|revised)\b|\bthe\s+following\b|\bdoes\s+not\s+apply\b",
    _F,
)
# How far into the words listed under such a sentence its exclusion may open.
_UNDER_REACH = 600


def _opens_sentence(text: str, at: int) -> int | None:
    """Where the sentence begins whose subject starts at `at`, if only a lead stands before it;
    its sentence, or its line where the words above end with none (a title: "EXCLUSION OF
    SNOWPLOW OPERATIONS SG 02 (Ed. 6-96)")."""
    sentence = start_of_sentence(text, at)
    line = max(sentence, text.rfind("\n", 0, at) + 1)
    for start in dict.fromkeys((sentence, line)):
        before = " ".join(text[start:at].split())
        if not before or _LEAD.fullmatch(before + " "):
            return start
    return None


def found(text: str) -> list[tuple[int, int, int]]:
    """Each exclusion of the whole policy an endorsement's stream states, as (item start, sentence
    start, heading-led: 1 or 0); the words run from the sentence start."""
    seen: dict[int, tuple[int, int, int]] = {}
    for m in _IN_VOICE.finditer(text):
        start = _opens_sentence(text, m.start())
        # "this insurance" and "we" stand for the policy only after the London-market opening
        # "Notwithstanding any provision to the contrary within this insurance, …"
        by_policy = _BY_POLICY.match(text, m.start()) is not None
        led = start is not None and "notwithstanding" in text[start : m.start()].lower()
        if start is not None and (by_policy or led):
            seen[start] = (unit_start(text, start), start, 0)
    for heading in _WHOLE_POLICY.finditer(text):
        window = text[heading.end() : heading.end() + _UNDER_REACH]
        # only before the first change listed under it: after one, "We will not pay" is in the
        # words that change brings ("A. The following is added to Coverage C: … We will not pay")
        if (other := _ANOTHER_CHANGE.search(window)) is not None:
            window = window[: other.start()]
        for m in _IN_VOICE.finditer(window):
            at = heading.end() + m.start()
            start = _opens_sentence(text, at)
            if start is not None and start >= heading.end():
                head = unit_start(text, start_of_sentence(text, heading.start()))
                seen[start] = (head, start, 1)
                break
    return sorted(seen.values(), key=lambda f: f[1])
