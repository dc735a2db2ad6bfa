"""Split a policy's page texts into a tree of clauses.

Pure functions over strings: no I/O, no PDF library. The input is what pypdf extracted, one
string per page; the output is every clause in document order. Each line of the input lands in
exactly one clause, so the clauses together are the whole document.

How a line becomes a clause heading, in order of strength:
- a keyword heading: ``SECTION I – EXCLUSIONS``, ``Part 1``, ``Section (A) Trip Cancellation``,
  ``Clause F. Exclusions``, ``Endorsement no.7 – Compassionate Visit``;
- a decimal number: ``4.2 Escape of water``, ``2.21``, ``4.1. Pre-Existing Diseases``;
- an enumerator: ``A.``, ``1.``, ``a.``, ``(1)``, ``(b)``, ``i.``, ``a)``;
- an unnumbered heading: an ALL-CAPS line, a short Title Case line after a finished sentence,
  a question ("What should I do before I submit a claim?"), or a phrase policies use as
  headings ("What is not covered"); a heading that wraps onto a second line stays one heading;
- a bullet: ``•``.

Enumerators are accepted only when they continue a list that is open (``b.`` after ``a.``) or
start a new one (``a.``, ``1.``, ``(i)``). That keeps a line that merely starts with a
cross-reference, such as "(2) through (4) below", inside the clause it belongs to. A list goes
on after a sub-heading inside one of its items and across sub-sections whose numbering runs
on; an item that ends with a colon, or stops mid-sentence, holds a list of its own.

Running headers and footers (repeated on most pages) and the lines of a table of contents
(contents.py) never open a clause. Under a definitions heading, a Title Case line is a defined
term and stays inside it. Each clause's kind and the reason for it come from kinds.py.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from claims_crew.policy.contents import contents_lines
from claims_crew.policy.kinds import (
    CLAUSE_KINDS,
    Carried,
    ClauseKind,
    ClauseWords,
    heading_kind,
    heading_like,
    settle,
)
from claims_crew.policy.line_shapes import (
    BARE_ROMAN,
    DECIMAL,
    FUNCTION_WORDS,
    QUESTION_HEADING,
    SENTENCE_END,
    VOCAB_HEADING,
    caps_heading,
    furniture,
    furniture_key,
    keyword_title_ok,
    roman,
    short_title,
    slug,
    title_case_heading,
    wraps_heading,
)

__all__ = ["CLAUSE_KINDS", "Clause", "ClauseKind", "segment"]
# The kind rules read this many lines of a clause's own text.
_OPENING_LINES = 6


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
    kind_reason: str = ""  # which rule gave the kind, e.g. a heading's words or a correction


# --- recognising a heading line ------------------------------------------------------------

_KEYWORD = re.compile(
    r"^(?P<kw>section|part|article|chapter|clause|endorsement)\s*[-–—]?\s*(?:no\.?\s*)?"
    r"(?P<num>\((?:[IVX]+|[A-Z]|\d{1,3})\)|[IVX]+|[A-Z]|\d{1,3})"
    r"(?=$|[\s.:_–—-])[.:]?\s*(?:(?:[-–—:]|_{1,3})\s*)?(?P<title>.*)$",
    re.IGNORECASE,
)
_TOP_NUMBER = re.compile(r"^(?P<num>\d{1,2})\.?\s+(?P<title>[A-Z][A-Z &/,'’()-]{3,}:?)$")
_ENUM = re.compile(
    r"^(?:\((?P<paren>[A-Za-z]{1,5}|\d{1,3})\)|(?P<bare>[A-Za-z]{1,5}|\d{1,3})(?P<punct>[.)]))"
    r"(?:\s+|$)(?P<title>.*)$"
)
_BULLET = re.compile(r"^[•▪●◦‣∙·➢➤■□–*-]\s+(?P<title>\S.*)$")
# A line that starts with a label but continues a sentence: "(2) through (4) below".
_CROSS_REFERENCE = re.compile(r"^(?:through|to|and|or|above|below|of|in|under|\(\w{1,4}\))(?:\s|$)")
_GLOSSARY = re.compile(
    r"^(?:general |policy )?(?:definitions?|glossary|meaning of (?:certain )?words)\b",
    re.IGNORECASE,
)
_DOCUMENT_WIDE = re.compile(r"^(?:general|policy|important)\b", re.IGNORECASE)


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
    numeral = roman(lower)
    if numeral is not None and (len(raw) > 1 or lower in "ivx"):
        ordinals.append(numeral)
        styles.append(wrap.format("i" if case == "a" else "I"))
    if not ordinals:
        return None
    label = match[0][: match.start("title")].strip()
    # Two readings ("i." is the ninth letter or roman one) travel together as "style|style".
    return _Candidate(3, "|".join(styles), tuple(ordinals), label, raw, match["title"])


def _classify(line: str, prev: str, prev_was_heading: bool) -> _Candidate | None:
    """What heading this line could open, before the open lists are consulted."""
    if m := _KEYWORD.match(line):
        title = m["title"].strip()
        if keyword_title_ok(title):
            num = m["num"].strip("()")
            return _Candidate(
                0,
                m["kw"].lower(),
                (),
                line[: m.start("title")].strip(),
                f"{m['kw'].title()} {num}",
                title,
            )
    if (m := DECIMAL.match(line)) and not _CROSS_REFERENCE.match(m["title"]):
        return _Candidate(
            2,
            "decimal",
            (),
            m["num"] + ("." if line[len(m["num"]) :][:1] == "." else ""),
            m["num"],
            m["title"].strip(),
        )
    if m := _TOP_NUMBER.match(line):
        label = line[: m.start("title")].strip()  # "4" or "4." as printed
        return _Candidate(2, "decimal", (), label, m["num"], m["title"].strip())
    if m := _ENUM.match(line):
        cand = _enum_candidate(m)
        if cand is not None and not _CROSS_REFERENCE.match(cand.title):
            return cand
        return None
    if m := _BULLET.match(line):
        return _Candidate(4, "bullet", (), line[0], "", m["title"].strip())
    if (m := BARE_ROMAN.match(line)) and (n := roman(m["num"].lower()) or 0) > 1:
        # Never a first item, so it only continues a list that is open.
        return _Candidate(3, "I.", (n,), m["num"], m["num"], m["title"].strip())
    finished = prev == "" or prev_was_heading or bool(SENTENCE_END.search(prev))
    if VOCAB_HEADING.match(line):
        return _Candidate(1, "heading", (), "", slug(line), line)
    if finished and caps_heading(line):
        return _Candidate(1, "heading", (), "", slug(line), line)
    if finished and QUESTION_HEADING.match(line):
        return _Candidate(1, "question", (), "", slug(line), line)
    if finished and title_case_heading(line):
        # "term": under a definitions heading, a Title Case line is a defined term.
        return _Candidate(1, "term", (), "", slug(line), line)
    return None


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
    lines: list[str] = field(default_factory=list)
    pages: set[int] = field(default_factory=set)
    last: str = ""  # its last line of content: running headers and footers left out


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
        self.preamble = _Open("preamble", "", "Preamble", -1, "", 0, (), None)
        self.done.append(self.preamble)
        # The text before the first heading is "preamble"; a heading titled Preamble is then
        # "preamble~2", so an id names one clause in every tree.
        self.ids: Counter[str] = Counter({self.preamble.id: 1})
        self.decimals: dict[tuple[int, ...], _Open] = {}
        # The last item of each enumerator style, so a list a heading closed can resume.
        self.last_items: dict[str, tuple[int, _Open]] = {}

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
            glossary = [
                i
                for i, o in enumerate(self.stack)
                if o.rank == 1 and o.style == "heading" and _GLOSSARY.match(o.title)
            ]
            if glossary and (cand.style == "term" or heading_kind(cand.title) is None):
                # A glossary entry belongs to its glossary, and so does a heading that names
                # no kind of section: a table's column head inside a definition.
                self._pop_to(glossary[-1] + 1)
            elif cand.style == "question" and (
                asked := [
                    i for i, o in enumerate(self.stack) if o.rank == 1 and o.style != "question"
                ]
            ):
                # A question subdivides the section above it: "How To Make A Claim", then
                # "When should I notify Chubb of my claim?".
                self._pop_to(asked[-1] + 1)
            elif _DOCUMENT_WIDE.match(cand.title):
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
        )
        self.stack.append(node)
        self.done.append(node)
        if cand.rank == 3:
            self.last_items[style] = (len(self.done) - 1, node)
        elif cand.rank in (0, 2):
            self.last_items.clear()
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
                if node.rank != 3 or node.style != style:
                    continue
                if ordinal == 1 and _introduces_list(self.stack[-1], node):
                    return style, ordinal  # "c. Definitions:" then "a. ..." is a list inside c.
                if ordinal in (node.ordinal + 1, 1):
                    self._pop_to(i)
                    return style, ordinal
                # "d." after a list nested in "c." continues the outer list.
        for style, ordinal in readings:
            if ordinal == 1 and not any(o.rank == 3 and o.style == style for o in self.stack):
                while self.stack and self.stack[-1].rank == 4:
                    self.stack.pop()
                return style, ordinal
        for style, ordinal in readings:
            if self._resume(style, ordinal):
                return style, ordinal
        return None

    def _resume(self, style: str, ordinal: int) -> bool:
        """Continue a list that a heading closed, if this item is its next one.

        Two layouts close a list that goes on: a sub-heading inside an item ("a. Coverage",
        "Table of Benefits", then "b. Special Exclusions"), where the list resumes at its own
        level; and numbering that runs on across sub-sections ("I." holding 1-6, "II." holding
        7-13), where the item joins the sub-section now open. Only one heading may stand
        between the two items, and a numbered section or keyword heading ends every list.
        """
        if (entry := self.last_items.get(style)) is None:
            return False
        at, last = entry
        if last.ordinal + 1 != ordinal or any(o is last for o in self.stack):
            return False
        between = self.done[at + 1 :]
        if sum(o.rank <= 1 or o.parent is last.parent for o in between) > 1:
            return False
        sibling = next(
            (
                o
                for o in self.stack
                if last.parent is not None
                and o.parent is last.parent.parent
                and o.rank == 3
                and o.style == last.parent.style
            ),
            None,
        )
        self.stack = (
            _path(sibling) if sibling is not None else _path(last.parent) if last.parent else []
        )
        return True

    def add_line(self, line: str, page: int, content: bool = False) -> None:
        self.top.lines.append(line)
        self.top.pages.add(page)
        if content:
            self.top.last = line.strip()


def _introduces_list(top: _Open, same_style: _Open) -> bool:
    """Whether a first item ("a.") opens a list inside the open item rather than restarting
    the open list of its style.

    It does when the open item is an item of that list ending with a colon ("c. Specific
    Definitions:", "a. Coverage ... provided that:"), or an item of another list, just inside
    the open one, whose words stop mid-sentence ("7. Payment ... of the Insured Person from;").
    """
    if not top.last or top.rank != 3:
        return False
    if top is same_style:
        return top.last.endswith(":")
    if top.parent is not same_style:
        return False
    ending = top.last.rstrip(" ;,–—-")
    return bool(ending) and ending.split()[-1].lower() in FUNCTION_WORDS


def segment(pages: Sequence[str], inherited: Carried | None = None) -> list[Clause]:
    """Split page texts (page 1 first) into clauses in document order.

    `inherited` is what a clause outside these pages passes down to their top-level clauses:
    an endorsement's words segmented under the form's clause they replace or join (amend.py).
    """
    page_lines = [[ln.rstrip() for ln in text.splitlines()] for text in pages]
    stripped = [[ln.strip() for ln in lines] for lines in page_lines]
    running = furniture(stripped)
    contents = contents_lines(stripped)
    builder = _Builder()
    prev, prev_was_heading = "", False
    for page_no, lines in enumerate(page_lines, start=1):
        for line_no, raw in enumerate(lines):
            line = raw.strip()
            if (page_no - 1, line_no) in contents:
                # A contents line stays in the text of the clause that is open, and the line
                # after the contents block starts afresh, as after a page break.
                builder.add_line(raw, page_no)
                prev, prev_was_heading = "", False
                continue
            content = bool(line) and not (running and furniture_key(line) in running)
            cand = _classify(line, prev, prev_was_heading) if content else None
            folded = False
            if cand is not None and cand.rank == 1 and prev_was_heading:
                # "Part 5" then "Uninsured Motorists Insurance": the heading's title is on the
                # next line. A heading too long for its column wraps onto the next line.
                top = builder.top
                if top.rank == 0 and not top.title:
                    top.title, folded = line, True
                elif wraps_heading(prev, line):
                    top.title, folded = f"{top.title} {line}", True
            opened = not folded and cand is not None and builder.try_open(cand)
            builder.add_line(raw, page_no, content)
            if content:
                heading = opened and cand is not None and cand.rank <= 1
                prev, prev_was_heading = line, heading or folded
    return list(_finish(builder.done, inherited))


def _finish(nodes: Iterable[_Open], inherited: Carried | None) -> Iterable[Clause]:
    # Parents come before their children, so each node finds what its parent passes down; the
    # top-level nodes (whose parent is None) find `inherited`.
    carried: dict[int, Carried | None] = {id(None): inherited}
    for node in nodes:
        call, carried[id(node)] = settle(_words(node), carried.get(id(node.parent)))
        if node.rank == -1 and not "".join(node.lines).strip():
            continue
        yield Clause(
            id=node.id,
            label=node.label,
            title=short_title(node.title),
            kind=call.kind,
            pages=tuple(sorted(node.pages)),
            parent=node.parent.id if node.parent is not None else None,
            text="\n".join(node.lines).strip("\n"),
            kind_reason=call.reason,
        )


def _words(node: _Open) -> ClauseWords:
    """What the kind rules read: the title, and the opening words after the label and title."""
    lines = [ln.strip() for ln in node.lines if ln.strip()][:_OPENING_LINES]
    if lines and node.rank >= 0:
        first = lines[0].removeprefix(node.label).strip()
        if node.title and heading_like(node.title, node.rank):
            first = first.removeprefix(node.title.strip()).strip()
        lines[0] = first
    title = node.title if node.rank >= 0 else ""
    return ClauseWords(node.id, title, node.rank, " ".join(lines), node.last)
