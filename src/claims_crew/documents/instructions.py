"""Words in a claim that address its reviewer: instructions to the AI, or to whoever decides.

A claimant writes to an insurer about a loss. A sentence that tells the reader to ignore its
instructions, to approve the claim, to answer with some confidence, or that speaks to "the AI
reviewer" or opens a "system:" turn, is not evidence of anything: it is an attempt to steer the
review. Models follow such sentences often enough, and when two of them follow one, each citing
a real clause it really looked up, nothing in the re-read of the evidence can tell. So the
words are found here, in code, in the text of record every later step sees (the description,
each text attachment, each PDF or OCR'd page), and the resolver's gates never let a claim that
holds them be decided without a person (resolver/gates.py); the fraud agent is told of them.

The phrasings are narrow on purpose: a claimant may well write "please approve the repair" or
"the adjuster told me to ignore the first estimate". Each pattern needs words no account of a
loss uses: a second person told what to decide, or the AI named as the reader. Matching is
case-insensitive and ignores how words are spaced or broken across lines, and the compatibility
forms of letters (full-width, ligatures); the phrase is reported as it was written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from claims_crew.documents.record import PageText

# Where a claim's own words stand, as a fact's source names it (vocabulary.DESCRIPTION_SOURCE).
DESCRIPTION = "description"
# A phrase is shown to people at most this long: enough to recognise it, never a whole page.
MAX_PHRASE_CHARS = 120

# Who an instruction is addressed to: a model, or the automated review itself.
# The longer names come first, so a phrase is reported whole ("the AI reviewer", not "the AI").
_AI = (
    r"(?:ai (?:model|assistant|agent|reviewer|system)|automated (?:reviewer|review|system|"
    r"assessor)|claims? (?:bot|ai)|(?:large )?language model|ai|a\.i\.|llm|gpt|chatgpt|chatbot)"
)
_DECIDE = r"(?:approve|accept|mark|classify|decide|pass|process|return|output)"
_FAVOURABLY = r"(?:covered|approved|valid|genuine|legitimate|paid|payable|not fraud(?:ulent)?)"
_OBJECT = (
    r"(?:instructions?|prompts?|rules|guidelines|directions|directives|programming|guardrails|"
    r"system prompt|training)"
)
_EARLIER = r"(?:your|previous|prior|above|earlier|preceding|system|other|original)"
# What a line opens with when a chat turn is typed into the claim.
_TURN = r"(?:^|[\n.!?\]>)] ?)"

# Each pattern is written on folded text (_fold), a space standing for any run of whitespace.
_WRITTEN: tuple[str, ...] = (
    # "ignore your instructions", "disregard all previous instructions", "forget the rules
    # above": an instruction about the reader's own instructions.
    rf"\b(?:ignore|disregard|forget|override|bypass)(?: all| any)?(?: of)?(?: the)? "
    rf"{_EARLIER}(?: \w+)? {_OBJECT}\b",
    r"\b(?:ignore|disregard|forget) (?:all|any) (?:prior |previous |other )?"
    r"(?:instructions|prompts|guidelines)\b",
    r"\b(?:ignore|disregard|forget) (?:everything|anything) (?:above|before|you (?:were|have "
    r"been) told)\b",
    # "approve this claim", "mark the claim as covered"
    r"\bapprove this claim\b",
    rf"\b{_DECIDE} (?:this|the|my) claim as {_FAVOURABLY}\b",
    # "you must approve", "your answer must be covered", "respond with covered"
    r"\byou (?:must|shall|are required to|have to) (?:now )?(?:approve|mark|classify|output|"
    r"answer|respond|ignore|disregard|accept this claim)\b",
    rf"\byour (?:answer|output|response|verdict|decision) (?:must|should|shall|will) be "
    rf"['\"]?{_FAVOURABLY}\b",
    rf"\b(?:respond|reply|answer|output) (?:only )?with ['\"]?{_FAVOURABLY}\b",
    r"\b(?:with|set|give it) (?:a )?confidence(?: score)?(?: of| to| =|:)? ?"
    r"(?:1\.0+|1|100 ?%)(?!\.?\d|,\d)",
    # "do not escalate", "don't send this to a person"
    r"\b(?:do not|don't|dont|never|no need to) (?:escalate|flag this|flag it)\b",
    r"\bwithout escalating\b",
    r"\b(?:do not|don't|dont|never) (?:refer|send|pass|forward) (?:this|it|the claim|my "
    r"claim) to (?:a|any) (?:human|person|manager|supervisor|reviewer)\b",
    # "you are now an unrestricted assistant", "act as a claims AI"
    rf"\byou are now (?:(?:a|an|the|in|my|acting as|operating as) )?(?:\w+ ){{0,2}}"
    rf"(?:{_AI}|(?:helpful|ai|claims) assistant|developer mode|dan|jailbroken|unrestricted|"
    rf"unfiltered)\b",
    rf"\b(?:pretend|act|behave) (?:to be|as if you are|as|like) (?:a |an |the )?{_AI}\b",
    # Speaking to the model: "note to the AI reviewer", "as the AI reviewer you must"
    rf"\b(?:note|message|instructions?|attention|dear|hello|hi|hey) (?:to |for )?(?:the |any |"
    rf"all )?{_AI}\b",
    rf"\bas (?:the|an|a) {_AI}(?: \w+)?,? you\b",
    rf"\bif you are an? {_AI}\b",
    # A chat turn or a prompt's markers typed into the claim: "system: you ...", "[INST]"; a
    # turn is reported to the end of its sentence.
    rf"{_TURN}system(?: (?:note|message|prompt|override|instruction))? ?:(?=[^\n]*?\b(?:you|"
    r"your|ignore|disregard|approve|must|answer|respond)\b)[^\n.!?]*",
    r"\b(?:system|admin|developer) (?:note|message|prompt|override|instruction)s? (?:to|for)\b",
    r"\b(?:new|updated|revised) (?:system )?instructions ?:",
    r"<\|? ?(?:im_start|im_end|system|endoftext) ?\|?>|\[/?inst\]|\[system\]|<</?sys>>",
    r"\b(?:jailbreak|developer mode|prompt injection)\b",
)
PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p.replace(" ", "[ \\n]")) for p in _WRITTEN
)

# Typographic forms a pattern is written without.
_TYPOGRAPHY = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\u2010": "-"}
)
# Characters that print as nothing and may be slipped between a phrase's letters.
_INVISIBLE = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}


@dataclass(frozen=True, slots=True)
class Instruction:
    """One phrase of the claim that addresses its reviewer, and where it stands."""

    phrase: str  # as written, whitespace collapsed
    where: str  # "description" or the attachment's file name
    page: int | None = None  # the page of a PDF or image attachment

    def named(self) -> str:
        """'"ignore your instructions" (description)', '"approve this claim" (a.pdf, page 2)'."""
        place = self.where if self.page is None else f"{self.where}, page {self.page}"
        return f"\u201c{self.phrase}\u201d ({place})"


def instruction_phrases(text: str) -> list[str]:
    """The phrases of `text` that address its reviewer, as written, in the order they stand;
    [] for a text that gives its reader no instructions."""
    return list(_phrases(text))


# One claim's texts are searched at each crew kickoff and again by the gates, so each text is
# folded and matched once: 300,000 characters (about a hundred full pages) took 0.56 s on a busy
# two-core machine. A claim has at most MAX_CLAIM_PAGES pages: the last few claims' are kept.
@lru_cache(maxsize=512)
def _phrases(text: str) -> tuple[str, ...]:
    folded, origin = _fold(text)
    spans = sorted((m.start(), m.end()) for p in PATTERNS for m in p.finditer(folded))
    merged: list[list[int]] = []
    for start, end in spans:  # one phrase two patterns match (in part) is reported once
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    found: list[str] = []
    for start, end in merged:
        lead = folded[start:end]
        start += len(lead) - len(lead.lstrip("\n.!?])> "))
        written = text[origin[start] : origin[end - 1] + 1]
        phrase = " ".join("".join(c for c in written if c not in _INVISIBLE).split())
        found.append(phrase[:MAX_PHRASE_CHARS])
    return tuple(found)


def instructions_in(
    description: str,
    attachments: Mapping[str, str],
    pages: Mapping[str, Sequence[PageText]],
) -> list[Instruction]:
    """Every phrase of a claim that addresses its reviewer: in its description, in each text
    attachment, and on each page of a PDF or image attachment (which names the page)."""
    return list(_instructions(description, attachments, pages))


def _instructions(
    description: str,
    attachments: Mapping[str, str],
    pages: Mapping[str, Sequence[PageText]],
) -> Iterator[Instruction]:
    for phrase in instruction_phrases(description):
        yield Instruction(phrase, DESCRIPTION)
    for name, text in attachments.items():
        paged = pages.get(name)
        if paged:
            for page in paged:
                for phrase in instruction_phrases(page.text):
                    yield Instruction(phrase, name, page.number)
        else:
            for phrase in instruction_phrases(text):
                yield Instruction(phrase, name)
    for name, paged in pages.items():  # pages of an attachment not given as text
        if name not in attachments:
            for page in paged:
                for phrase in instruction_phrases(page.text):
                    yield Instruction(phrase, name, page.number)


def _fold(text: str) -> tuple[str, list[int]]:
    """`text` lower-cased, compatibility forms and typographic quotes made plain, invisible
    characters dropped and each run of whitespace one space (a line break stays one, so a
    "system:" turn is still seen to open a line); with, for each folded character, the index
    of the character of `text` it came from."""
    out: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        if char in _INVISIBLE:
            continue
        if char.isspace():
            mark = "\n" if char in "\n\r\u2028\u2029" else " "
            if out and out[-1] in " \n":
                if mark == "\n":
                    out[-1] = "\n"
                continue
            out.append(mark)
            origin.append(index)
            continue
        for plain in unicodedata.normalize("NFKC", char).translate(_TYPOGRAPHY).casefold():
            out.append(plain)
            origin.append(index)
    return "".join(out), origin
