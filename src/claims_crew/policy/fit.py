"""The clauses of some kinds that a claim's words fit: the policy search, as an adjuster runs it.

An adjuster handed a flood claim reads the flood exclusion before agreeing that it is covered.
The code does the same with the claim's own words, through the ranked search policy_lookup runs
(PolicyDocument.rank):

1. the words become search terms as an agent's query does (query.search_terms: stopwords out,
   the policy's words for plain ones in), less those that tell no clause apart: numbers, and
   words the policy prints in more than `common_share` of its clauses ("damage", "cover");
2. the search ranks the clauses by bm25 over those terms: a word few clauses use weighs more
   than a common one, and a clause's heading weighs three times its text;
3. a clause of the kinds asked for fits when at least `min_words` of the terms are in it and
   its score reaches `min_score`. The score is read in rare words: divided by the weight bm25
   gives a word that one clause alone uses. That weight grows with the number of clauses, so
   without it a long policy would pass any bar a short one is held to. One word, however rare,
   is a coincidence ("roof lights" and "the action of light"); two that the clause shares with
   the claim are a reason to read it;
4. of a clause and a sub-clause that both fit, only the sub-clause is kept: its words fit.

Each fit names the words it shares with the claim and the clauses whose lookup shows its text:
itself and the clauses it sits within.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.query import search_terms
from claims_crew.policy.segment import Clause


@dataclass(frozen=True, slots=True)
class Fit:
    """A clause the words fit: its score in rare words, the words it shares with them, and the
    clauses a lookup of which shows its text."""

    clause: Clause
    score: float
    words: tuple[str, ...]
    shown_by: tuple[str, ...]


def rare_word_weight(clauses: int) -> float:
    """The weight SQLite's bm25 gives a word found in one clause of `clauses` (its idf)."""
    return math.log((clauses - 1 + 0.5) / (1 + 0.5)) if clauses > 2 else 1.0


def fitting(
    doc: PolicyDocument,
    words: str,
    kinds: Collection[str],
    *,
    min_words: int,
    min_score: float,
    common_share: float,
) -> list[Fit]:
    """The clauses of `kinds` that `words` fit, best first."""
    count = len(doc.clauses)
    terms = [t for t in search_terms(words) if not t.isdigit()]
    found_in = doc.clauses_with(terms)
    telling = [t for t in terms if len(found_in[t]) <= common_share * count]
    unit = rare_word_weight(count)
    fits: list[Fit] = []
    for hit in doc.rank(telling, count, snippets=False):
        shared = tuple(t for t in telling if hit.clause.id in found_in[t])
        score = hit.score / unit
        if hit.clause.kind in kinds and len(shared) >= min_words and score >= min_score:
            shown_by = (hit.clause.id, *doc.ancestors(hit.clause.id))
            fits.append(Fit(hit.clause, score, shared, shown_by))
    # A clause whose sub-clause also fits is only the sub-clause's heading.
    enclosing = {a for fit in fits for a in fit.shown_by[1:]}
    return [fit for fit in fits if fit.clause.id not in enclosing]
