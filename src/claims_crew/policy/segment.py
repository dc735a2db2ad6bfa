"""Split a policy's page texts into a tree of clauses.

Pure functions over strings: no I/O, no PDF library. The input is what pypdf extracted, one
string per page; the output is every clause in document order. Each line of the input lands in
exactly one clause, so the clauses together are the whole document.

How a line becomes a clause heading, in order of strength:
- a keyword heading: ``SECTION I – EXCLUSIONS``, ``Part 1``, ``Section (A) Trip Cancellation``;
- a decimal number: ``4.2 Escape of water``, ``2.21``, ``4.1. Pre-Existing Diseases``;
- an enumerator: ``A.``, ``1.``, ``a.``, ``(1)``, ``(b)``, ``i.``, ``a)``;
- an unnumbered heading: an ALL-CAPS line, a short Title Case line after a finished sentence,
  or a phrase policies use as headings ("What is not covered");
- a bullet: ``•``.

Enumerators are accepted only when they continue a list that is open (``b.`` after ``a.``) or
start a new one (``a.``, ``1.``, ``(i)``). That keeps a line that merely starts with a
cross-reference, such as "(2) through (4) below", inside the clause it belongs to.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, get_args

ClauseKind = Literal["grant", "exclusion", "condition", "limit", "definition", "other"]
CLAUSE_KINDS: tuple[ClauseKind, ...] = get_args(ClauseKind)


class Clause(NamedTuple):
    """One clause of a policy, with its own lines only (its sub-clauses are clauses too).

    A named tuple rather than a dataclass: a large policy has thousands of clauses, and loading
    them from the index is most of a warm load.
    """

    id: str
    label: str
    title: str
    kind: ClauseKind
    pages: tuple[int, ...]
    parent: str | None
    text: str


# --- recognising a heading line ------------------------------------------------------------

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_KEYWORD = re.compile(
    r"^(?P<kw>section|part|article|chapter)\s*[-–—]?\s*"
    r"(?P<num>\((?:[IVX]+|[A-Z]|\d{1,3})\)|[IVX]+|[A-Z]|\d{1,3})"
    r"(?=$|[\s.:_–—-])[.:]?\s*(?:(?:[-–—:]|_{1,3})\s*)?(?P<title>.*)$",
    re.IGNORECASE,
)
_DECIMAL = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,3}){1,4})\.?(?=\s|[A-Z(“\"]|$)\s*(?P<title>.*)$")
_TOP_NUMBER = re.compile(r"^(?P<num>\d{1,2})\s+(?P<title>[A-Z][A-Z &/,'’()-]{3,})$")
_ENUM = re.compile(
    r"^(?:\((?P<paren>[A-Za-z]{1,5}|\d{1,3})\)|(?P<bare>[A-Za-z]{1,5}|\d{1,3})(?P<punct>[.)]))"
    r"(?:\s+|$)(?P<title>.*)$"
)
_BULLET = re.compile(r"^[•▪●◦‣∙·➢➤■□–*-]\s+(?P<title>\S.*)$")
# A line that starts with a label but continues a sentence: "(2) through (4) below".
_CROSS_REFERENCE = re.compile(r"^(?:through|to|and|or|above|below|of|in|under|\(\w{1,4}\))(?:\s|$)")
_VOCAB_HEADING = re.compile(
    r"^(?:what (?:is|are) (?:not )?covered|what we (?:will|won[’']t|do not|don[’']t) (?:pay|cover)"
    r"|(?:general |special |policy )?(?:exclusions?|conditions?|definitions?)"
    r"|limits? of (?:liability|insurance|cover))(?:\s*(?:[-–—:]|__)\s*[^.;,]{0,40})?$",
    re.IGNORECASE,
)
_DOCUMENT_WIDE = re.compile(r"^(?:general|policy|important)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.:;!?)\"”’]\s*$")


def _roman(token: str) -> int | None:
    """Value of a lower-case roman numeral up to 'xxxix', else None."""
    if not token or any(ch not in "ivx" for ch in token):
        return None
    total, prev = 0, 0
    for ch in reversed(token):
        value = _ROMAN_VALUES[ch]
        total += -value if value < prev else value
        prev = max(prev, value)
    return total if 0 < total < 40 else None


@dataclass(frozen=True, slots=True)
class _Candidate:
    rank: int  # 0 keyword, 1 unnumbered heading, 2 decimal, 3 enumerator, 4 bullet
    style: str  # enumerators: how the label is written, e.g. "(a)", "1.", "A."
    ordinals: tuple[int, ...]  # possible positions in a list; letters that are roman have two
    label: str
    token: str
    title: str


def _enum_candidate(match: re.Match[str]) -> _Candidate | None:
    paren, bare, punct = match["paren"], match["bare"], match["punct"]
    raw = paren or bare
    wrap = "({})" if paren else "{}" + punct
    if raw.isdigit():
        return _Candidate(
            3,
            wrap.format("1"),
            (int(raw),),
            match[0][: match.start("title")].strip(),
            raw,
            match["title"],
        )
    lower = raw.lower()
    case = "a" if raw.islower() else ("A" if raw.isupper() else "")
    if not case:
        return None
    ordinals: list[int] = []
    styles: list[str] = []
    if len(raw) == 1:
        ordinals.append(ord(lower) - ord("a") + 1)
        styles.append(wrap.format(case))
    roman = _roman(lower)
    if roman is not None and (len(raw) > 1 or lower in "ivx"):
        ordinals.append(roman)
        styles.append(wrap.format("i" if case == "a" else "I"))
    if not ordinals:
        return None
    label = match[0][: match.start("title")].strip()
    # Two readings ("i." is the ninth letter or roman one) travel together as "style|style".
    return _Candidate(3, "|".join(styles), tuple(ordinals), label, raw, match["title"])


_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "or",
        "per",
        "the",
        "to",
        "with",
        "what",
        "is",
        "are",
        "not",
        "we",
        "you",
        "your",
    ]
)


def _title_case_heading(line: str) -> bool:
    words = line.replace("__", " ").split()
    if not 1 <= len(words) <= 8 or len(line) > 60 or any(ch.isdigit() for ch in line):
        return False
    if not line[0].isupper() or line.endswith((".", ",", ";", ":")):
        return False
    if words[-1].lower() in _FUNCTION_WORDS:
        return False
    content = [w for w in words if w.lower() not in _FUNCTION_WORDS and any(c.isalpha() for c in w)]
    return bool(content) and all(w[0].isupper() or w[0] in "&–—-/(" for w in content)


def _caps_heading(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    if len(letters) < 4 or len(line) > 70 or len(line.split()) > 10 or "...." in line:
        return False
    if line.endswith((",", ";", ".")) or line.split()[-1].lower() in _FUNCTION_WORDS:
        return False
    return sum(c.isupper() for c in letters) >= 0.9 * len(letters)


def _keyword_title_ok(title: str) -> bool:
    """Tell "Section 13 - Delayed Baggage" from "Section 4 – Cancellation cover shall be"."""
    if not title:
        return True
    if title.endswith((",", ";")) or title[0].islower():
        return False
    long_words = [w for w in title.split() if sum(c.isalpha() for c in w) >= 4]
    capitalised = sum(w[0].isupper() or not w[0].isalpha() for w in long_words)
    return len(long_words) <= 10 and capitalised >= 0.75 * len(long_words)


def _classify(line: str, prev: str, prev_was_heading: bool) -> _Candidate | None:
    """What heading this line could open, before the open lists are consulted."""
    if m := _KEYWORD.match(line):
        title = m["title"].strip()
        if _keyword_title_ok(title):
            num = m["num"].strip("()")
            return _Candidate(
                0,
                m["kw"].lower(),
                (),
                line[: m.start("title")].strip(),
                f"{m['kw'].title()} {num}",
                title,
            )
    if (m := _DECIMAL.match(line)) and not _CROSS_REFERENCE.match(m["title"]):
        return _Candidate(
            2,
            "decimal",
            (),
            m["num"] + ("." if line[len(m["num"]) :][:1] == "." else ""),
            m["num"],
            m["title"].strip(),
        )
    if m := _TOP_NUMBER.match(line):
        return _Candidate(2, "decimal", (), m["num"], m["num"], m["title"].strip())
    if m := _ENUM.match(line):
        cand = _enum_candidate(m)
        if cand is not None and not _CROSS_REFERENCE.match(cand.title):
            return cand
        return None
    if m := _BULLET.match(line):
        return _Candidate(4, "bullet", (), line[0], "", m["title"].strip())
    finished = prev == "" or prev_was_heading or bool(_SENTENCE_END.search(prev))
    if _VOCAB_HEADING.match(line):
        return _Candidate(1, "heading", (), "", _slug(line), line)
    if finished and (_caps_heading(line) or _title_case_heading(line)):
        return _Candidate(1, "heading", (), "", _slug(line), line)
    return None


def _slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words[:6]) or "heading"


# --- page furniture ------------------------------------------------------------------------


def _furniture(pages: Sequence[Sequence[str]]) -> frozenset[str]:
    """Lines repeated at the top or bottom of most pages: running headers, footers, watermarks.

    They stay in the clause text (nothing is dropped) but never open a clause.
    """
    if len(pages) < 3:
        return frozenset()
    seen: Counter[str] = Counter()
    for lines in pages:
        edge = [ln for ln in lines if ln][:16] + [ln for ln in lines if ln][-5:]
        # Numbered clauses at the top of short pages look alike once digits are folded; they
        # are content, not furniture.
        seen.update({_furniture_key(ln) for ln in edge if not _DECIMAL.match(ln)})
    floor = max(3, len(pages) // 2)
    return frozenset(key for key, n in seen.items() if n >= floor)


def _furniture_key(line: str) -> str:
    return re.sub(r"\d+", "#", line.lower())


# --- building the tree ---------------------------------------------------------------------


@dataclass(slots=True)
class _Open:
    """A clause being collected."""

    id: str
    label: str
    title: str
    rank: int
    style: str
    ordinal: int
    decimal: tuple[int, ...]
    parent: _Open | None
    kind_hint: ClauseKind | None
    lines: list[str] = field(default_factory=list)
    pages: set[int] = field(default_factory=set)


def _decimal_parts(num: str) -> tuple[int, ...]:
    return tuple(int(p) for p in num.split("."))


def _child_id(parent: _Open | None, cand: _Candidate, ordinal: int, style: str) -> str:
    base = parent.id if parent is not None and parent.rank >= 0 else ""
    if cand.rank == 0:
        return f"{base}/{cand.token}" if base and parent and parent.rank == 0 else cand.token
    if cand.rank == 2:
        return cand.token  # a decimal number already names its ancestors
    if cand.rank == 1:
        return f"{base}/{cand.token}" if base else cand.token
    if cand.rank == 4:
        return f"{base}/•{ordinal}" if base else f"•{ordinal}"
    token = cand.token
    # Lower-case letters and roman numerals read as "4.2(b)"; capitals and numbers as "I.A.1".
    if style.startswith("(") or style[0] in "ai":
        return f"{base}({token})"
    return f"{base}.{token}" if base else token


def _path(node: _Open) -> list[_Open]:
    """The node and its ancestors, outermost first."""
    path: list[_Open] = []
    walk: _Open | None = node
    while walk is not None:
        path.append(walk)
        walk = walk.parent
    return path[::-1]


class _Builder:
    def __init__(self) -> None:
        self.stack: list[_Open] = []
        self.done: list[_Open] = []
        self.preamble = _Open("preamble", "", "Preamble", -1, "", 0, (), None, None)
        self.done.append(self.preamble)
        # The text before the first heading is "preamble"; a heading titled Preamble is then
        # "preamble~2", so an id names one clause in every tree.
        self.ids: Counter[str] = Counter({self.preamble.id: 1})
        self.decimals: dict[tuple[int, ...], _Open] = {}

    def _unique(self, clause_id: str) -> str:
        # Labels repeat (a table of contents, a second "SECTION I"): later ones get "~2", "~3".
        self.ids[clause_id] += 1
        n = self.ids[clause_id]
        return clause_id if n == 1 else f"{clause_id}~{n}"

    @property
    def top(self) -> _Open:
        return self.stack[-1] if self.stack else self.preamble

    def _pop_to(self, keep: int) -> None:
        del self.stack[keep:]

    def try_open(self, cand: _Candidate) -> bool:
        """Open a clause for this candidate if the open lists allow it; say whether it did."""
        style, ordinal = cand.style, 0
        if cand.rank == 0:
            same = [i for i, o in enumerate(self.stack) if o.rank == 0 and o.style == cand.style]
            if same:
                self._pop_to(same[0])
            else:
                keyword = [i for i, o in enumerate(self.stack) if o.rank == 0]
                self._pop_to(keyword[-1] + 1 if keyword else 0)
        elif cand.rank == 1:
            keyword = [i for i, o in enumerate(self.stack) if o.rank == 0]
            if _DOCUMENT_WIDE.match(cand.title):
                self._pop_to(0)  # "General Exclusions" applies to every section, not the last
            else:
                self._pop_to(keyword[-1] + 1 if keyword else 0)
        elif cand.rank == 2:
            parts = _decimal_parts(cand.token)
            if not self._decimal_in_sequence(parts):
                return False
            owner = next(
                (
                    self.decimals[parts[:n]]
                    for n in range(len(parts) - 1, 0, -1)
                    if parts[:n] in self.decimals
                ),
                None,
            )
            if owner is not None:
                # "3.1.11" belongs under "3.1" even if a heading has been opened since.
                self.stack = _path(owner)
            else:
                while self.stack and self.stack[-1].rank >= 2:
                    self.stack.pop()
        elif cand.rank == 4:
            while self.stack and self.stack[-1].rank == 4:
                ordinal = self.stack.pop().ordinal
            ordinal += 1
        else:
            chosen = self._place_enumerator(cand)
            if chosen is None:
                return False
            style, ordinal = chosen
        parent = self.stack[-1] if self.stack else None
        node = _Open(
            id=self._unique(_child_id(parent, cand, ordinal, style)),
            label=cand.label,
            title=cand.title,
            rank=cand.rank,
            style=style,
            ordinal=ordinal,
            decimal=_decimal_parts(cand.token) if cand.rank == 2 else (),
            parent=parent,
            kind_hint=_kind_from_title(cand),
        )
        self.stack.append(node)
        self.done.append(node)
        if cand.rank == 2:
            self.decimals[node.decimal] = node
        return True

    def _decimal_in_sequence(self, parts: tuple[int, ...]) -> bool:
        """ "5.4" needs "5", "5.3" or to be a first item; else it is a wrapped cross-reference."""
        if len(parts) == 1 or parts[-1] <= 1 or parts[:-1] in self.decimals:
            return True
        return (*parts[:-1], parts[-1] - 1) in self.decimals

    def _place_enumerator(self, cand: _Candidate) -> tuple[str, int] | None:
        """Continue an open list (next ordinal) or start one (first ordinal); else refuse."""
        readings = list(zip(cand.style.split("|"), cand.ordinals, strict=True))
        for style, ordinal in readings:
            for i in range(len(self.stack) - 1, -1, -1):
                node = self.stack[i]
                if node.rank == 3 and node.style == style:
                    if ordinal in (node.ordinal + 1, 1):
                        self._pop_to(i)
                        return style, ordinal
                    break
        for style, ordinal in readings:
            if ordinal == 1 and not any(o.rank == 3 and o.style == style for o in self.stack):
                while self.stack and self.stack[-1].rank == 4:
                    self.stack.pop()
                return style, ordinal
        return None

    def add_line(self, line: str, page: int) -> None:
        self.top.lines.append(line)
        self.top.pages.add(page)


_KIND_PATTERNS: tuple[tuple[ClauseKind, re.Pattern[str]], ...] = (
    (
        "exclusion",
        re.compile(
            r"exclu|not covered|we do not (?:cover|insure|pay)|we will not (?:cover|pay)"
            r"|will not pay|does not apply|won[’']t (?:cover|pay)|not insured",
            re.IGNORECASE,
        ),
    ),
    ("definition", re.compile(r"\bdefinitions?\b|meaning of words|glossary", re.IGNORECASE)),
    ("condition", re.compile(r"\bconditions?\b|your duties|duties after", re.IGNORECASE)),
    ("limit", re.compile(r"\blimits?\b|deductible|\bexcess\b|sum insured", re.IGNORECASE)),
    (
        "grant",
        re.compile(
            r"\bcover(?:ed|age|ages|s)?\b|insuring agreement|perils insured|\bbenefits?\b"
            r"|we (?:will )?(?:cover|insure|pay)\b|additional payments",
            re.IGNORECASE,
        ),
    ),
)
# A clause's own opening words decide its kind only when they are this explicit.
_STRONG_OPENING: tuple[tuple[ClauseKind, re.Pattern[str]], ...] = (
    (
        "exclusion",
        re.compile(
            r"^(?:we do not (?:cover|insure|pay)|we will not (?:cover|pay)|this insurance does not"
            r" apply|what is not covered)",
            re.IGNORECASE,
        ),
    ),
    ("grant", re.compile(r"^(?:we (?:will )?(?:cover|insure)\b|what is covered)", re.IGNORECASE)),
)


def _kind_from_title(cand: _Candidate) -> ClauseKind | None:
    """The kind a heading's own words announce, or None to inherit the parent's."""
    title = cand.title
    for kind, pattern in _STRONG_OPENING:
        if pattern.match(title):
            return kind
    heading_like = cand.rank <= 1 or (
        len(title.split()) <= 6 and not title.endswith(".") and " means " not in title
    )
    if not heading_like:
        return None
    for kind, pattern in _KIND_PATTERNS:
        if pattern.search(title):
            return kind
    return None


def _resolve_kind(node: _Open) -> ClauseKind:
    walk: _Open | None = node
    while walk is not None:
        if walk.kind_hint is not None:
            return walk.kind_hint
        walk = walk.parent
    return "other"


def segment(pages: Sequence[str]) -> list[Clause]:
    """Split page texts (page 1 first) into clauses in document order."""
    page_lines = [[ln.rstrip() for ln in text.splitlines()] for text in pages]
    furniture = _furniture([[ln.strip() for ln in lines] for lines in page_lines])
    builder = _Builder()
    prev, prev_was_heading = "", False
    for page_no, lines in enumerate(page_lines, start=1):
        for raw in lines:
            line = raw.strip()
            content = bool(line) and not (furniture and _furniture_key(line) in furniture)
            cand = _classify(line, prev, prev_was_heading) if content else None
            opened = cand is not None and builder.try_open(cand)
            builder.add_line(raw, page_no)
            if content:
                prev, prev_was_heading = line, opened and cand is not None and cand.rank <= 1
    return list(_finish(builder.done))


def _finish(nodes: Iterable[_Open]) -> Iterable[Clause]:
    for node in nodes:
        if node.rank == -1 and not "".join(node.lines).strip():
            continue
        yield Clause(
            id=node.id,
            label=node.label,
            title=_short_title(node.title),
            kind=_resolve_kind(node),
            pages=tuple(sorted(node.pages)),
            parent=node.parent.id if node.parent is not None else None,
            text="\n".join(node.lines).strip("\n"),
        )


def _short_title(title: str) -> str:
    title = " ".join(title.split())
    return title if len(title) <= 100 else title[:99].rstrip() + "…"
