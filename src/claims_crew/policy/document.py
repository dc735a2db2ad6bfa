"""One indexed policy: its clauses, lookup by id or label, and ranked search by words."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from claims_crew.policy.cache import StoredIndex, reader
from claims_crew.policy.ids import clause_key
from claims_crew.policy.query import CANDIDATES_PER_RESULT, Ranked, rerank, search_terms
from claims_crew.policy.segment import Clause

if TYPE_CHECKING:
    from claims_crew.policy.amend import Amendment, Unmatched
    from claims_crew.policy.issued import IssuedPolicy


@dataclass(frozen=True, slots=True)
class LookupMiss:
    """No clause matches the reference; `near` lists ids that resemble it."""

    reference: str
    near: tuple[str, ...]

    def message(self) -> str:
        hint = f" Near ids: {', '.join(self.near)}." if self.near else ""
        return f"No clause {self.reference!r} in this policy.{hint}"


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A clause that matched a word search, best first."""

    clause: Clause
    snippet: str
    score: float


class PolicyDocument:
    """The clause tree of one PDF, loaded from the on-disk index."""

    def __init__(
        self,
        path: Path,
        sha256: str,
        stored: StoredIndex,
        index_path: Path,
        corrections_sha256: str | None = None,
    ) -> None:
        self.path = path
        self.sha256 = sha256
        # Hash of the kind corrections applied to these clauses (None: kinds as segmented).
        self.corrections_sha256 = corrections_sha256
        self.page_count = stored.page_count
        self.clauses: Sequence[Clause] = stored.clauses
        self.keys, self.label_keys = stored.keys, stored.label_keys
        # How OCR read the wording, where it was scanned; None where it has a text layer.
        self.ocr = stored.ocr
        self.index_path = index_path
        # The wording in force of an issued policy (library.open with `issued`): the clauses an
        # endorsement changed, by id; the form they amend, as issued; the policy. A form opened
        # on its own has none of them.
        self.amendments: Mapping[str, Amendment] = {}
        self.form: PolicyDocument | None = None
        self.issued: IssuedPolicy | None = None
        # Changes of its endorsements in force whose target the form lacks (amend.py).
        self.unmatched: Sequence[Unmatched] = ()
        # Each endorsement in force's reading digest, by form number (policy/confirmations.py).
        self.readings: Mapping[str, str] = {}
        self._by_id = {c.id: c for c in stored.clauses}
        self._by_key: dict[str, list[Clause]] = {}
        self._by_label: dict[str, list[Clause]] = {}
        self._children: dict[str, list[Clause]] = {}
        # Keys were computed when the index was written, so opening a policy runs no regex.
        for clause, key, label_key in zip(
            stored.clauses, stored.keys, stored.label_keys, strict=True
        ):
            self._by_key.setdefault(key, []).append(clause)
            if label_key:
                self._by_label.setdefault(label_key, []).append(clause)
            if clause.parent is not None:
                self._children.setdefault(clause.parent, []).append(clause)

    def get(self, clause_id: str) -> Clause | None:
        """The clause with exactly this canonical id."""
        return self._by_id.get(clause_id)

    def children(self, clause_id: str) -> list[Clause]:
        return list(self._children.get(clause_id, ()))

    def full_text(self, clause_id: str) -> str:
        """The clause's own text followed by all of its sub-clauses, in document order."""
        clause = self._by_id[clause_id]
        parts = [clause.text]
        for child in self._children.get(clause_id, ()):
            parts.append(self.full_text(child.id))
        return "\n".join(p for p in parts if p)

    def lookup(self, reference: str) -> Clause | LookupMiss:
        """Resolve a canonical id, a printed label or a loose reference like "clause 4.2b"."""
        reference = reference.strip()
        if exact := self._by_id.get(reference):
            return exact
        key = clause_key(reference)
        repeat = re.search(r"~\d+", reference)
        for table in (self._by_key, self._by_label):
            candidates = table.get(key, []) if key else []
            if repeat:  # "Section (A)~2" asks for the second clause printed as "Section (A)"
                candidates = [c for c in candidates if repeat.group() in c.id]
            if candidates:
                return _best(candidates, self._children)
        return LookupMiss(reference, self._near(reference, key))

    def _near(self, reference: str, key: str) -> tuple[str, ...]:
        by_key = difflib.get_close_matches(key, list(self._by_key), n=5, cutoff=0.6)
        ids = [self._by_key[k][0].id for k in by_key]
        ids += difflib.get_close_matches(reference, list(self._by_id), n=5, cutoff=0.6)
        return tuple(dict.fromkeys(ids))[:5]

    def search(self, words: str, limit: int = 5) -> list[SearchHit]:
        """Clauses ranked by SQLite FTS5 bm25 over title and text; any word may match.

        The words go through search_terms: plain words gain the policy's words for them.
        """
        return self.rank(search_terms(words), limit)

    def rank(self, terms: Sequence[str], limit: int, *, snippets: bool = True) -> list[SearchHit]:
        """Clauses ranked by bm25 for these terms exactly (no thesaurus); any term may match.

        Without `snippets` each hit's snippet is empty: a caller that reads only the clauses and
        scores (policy/fit.py, which ranks every clause) spares SQLite a snippet of every match,
        a tenth of the call on the sample home policy (1.10 against 1.24 ms, idle, one run)."""
        if not terms or limit < 1:
            return []
        query = " OR ".join(f'"{t}"' for t in terms)
        snippet = "snippet(clause_fts, 1, '[', ']', '…', 16)" if snippets else "''"
        rows = (
            reader(self.index_path)
            .execute(
                f"SELECT c.id, {snippet}, "
                "bm25(clause_fts, 3.0, 1.0) AS rank "
                "FROM clause_fts JOIN clauses c ON c.seq = clause_fts.rowid "
                "WHERE clause_fts MATCH ? ORDER BY rank LIMIT ?",
                (query, limit * CANDIDATES_PER_RESULT),
            )
            .fetchall()
        )
        ranked = rerank(
            [Ranked(cid, " ".join(snip.split()), -rank) for cid, snip, rank in rows],
            lambda cid: self._by_id[cid].parent,
            lambda cid: self._by_id[cid].text,
            limit,
        )
        return [SearchHit(self._by_id[h.clause_id], h.snippet, h.score) for h in ranked]

    def clauses_with(self, terms: Sequence[str]) -> dict[str, frozenset[str]]:
        """The ids of the clauses each term occurs in, its forms matched as the search matches
        them ("leaks" finds the clauses that say "leak")."""
        return {term: _clauses_with(self.index_path, term) for term in dict.fromkeys(terms)}

    def ancestors(self, clause_id: str) -> list[str]:
        """The ids of the clauses a clause sits within, nearest first."""
        out: list[str] = []
        parent = self._by_id[clause_id].parent
        while parent is not None and parent not in out:
            out.append(parent)
            parent = self._by_id[parent].parent if parent in self._by_id else None
        return out


# The index at a path never changes (its name holds the PDF's hash and the index version), so a
# term's clauses are read once a process: the exclusion search asks for the same words claim
# after claim.
@functools.lru_cache(maxsize=4096)
def _clauses_with(index_path: Path, term: str) -> frozenset[str]:
    return frozenset(
        cid
        for (cid,) in reader(index_path).execute(
            "SELECT c.id FROM clause_fts JOIN clauses c ON c.seq = clause_fts.rowid "
            "WHERE clause_fts MATCH ?",
            (f'"{term}"',),
        )
    )


def _best(candidates: list[Clause], children: dict[str, list[Clause]]) -> Clause:
    # A label printed twice is usually a table-of-contents line and the clause itself; the one
    # with a body (more lines, or sub-clauses) is the one people mean. Ties go to document order.
    with_body = [c for c in candidates if "\n" in c.text.strip() or c.id in children]
    return (with_body or candidates)[0]
