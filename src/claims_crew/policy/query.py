"""Search terms from the words a claimant or an agent writes, in the words policies use.

People describe a loss in plain words ("car stolen", "drunk", "phone"); policies speak of
"auto", "theft", "intoxication", "smartphone". A word search that only looks for the plain
words misses the clause that answers the question. So a query keeps its own words, drops the
words every clause has ("what", "my", "the"), and adds the policy words for the plain ones.

Pure functions over strings; the thesaurus is data. FTS5 syntax never reaches the query: terms
are plain word characters, quoted by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

# Words that say nothing about which clause is meant.
_STOPWORDS_TEXT = """
a about after again all also am an and any are as at be because been before being but by can
could did do does doing don done for from get got had has have having he her him his how i if in
into is it its just me much my myself no of on or our out over own she so some such than that the
their them then there these they this those to too up us very was way we were what when where
which while who why will with would you your yours
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

# Plain word → words policies use for it. Keys are lower-case words of a query.
THESAURUS: dict[str, tuple[str, ...]] = {
    "stolen": ("theft", "stolen"),
    "steal": ("theft",),
    "robbed": ("theft", "robbery"),
    "burgled": ("burglary", "theft"),
    "car": ("auto", "vehicle"),
    "cars": ("auto", "vehicle"),
    "truck": ("auto", "vehicle"),
    "van": ("auto", "vehicle"),
    "vehicle": ("auto",),
    "driver": ("operator", "motorist"),
    "crash": ("accident", "collision"),
    "crashed": ("accident", "collision"),
    "hit": ("collision", "accident"),
    "drunk": ("intoxication", "alcohol", "liquor"),
    "drinking": ("alcohol", "intoxication"),
    "hurt": ("injury", "bodily"),
    "injured": ("injury", "bodily"),
    "bills": ("expenses",),
    "bill": ("expenses",),
    "cost": ("expenses",),
    "costs": ("expenses",),
    "guest": ("others",),
    "visitor": ("others",),
    "ill": ("illness", "sickness"),
    "sick": ("illness", "sickness"),
    "doctor": ("medical", "practitioner"),
    "phone": ("smartphone", "mobile"),
    "tv": ("television", "purchase"),
    "bought": ("purchase", "purchased"),
    "buy": ("purchase", "purchases"),
    "airline": ("carrier",),
    "suitcase": ("baggage", "luggage"),
    "clothes": ("clothing", "essential"),
    "bag": ("baggage", "luggage"),
    "bags": ("baggage", "luggage"),
    "lost": ("loss",),
    "late": ("delay", "delayed"),
    "delayed": ("delay",),
    "camera": ("valuables",),
    "alone": ("unattended",),
    "holiday": ("trip",),
    "cancel": ("cancellation",),
    "house": ("dwelling", "home"),
    "home": ("dwelling",),
    "jewelry": ("jewellery", "jewelry", "watches"),
    "jewellery": ("jewellery", "jewelry", "watches"),
    "sewage": ("sewer", "drain"),
    "cap": ("limit",),
    "abroad": ("outside",),
    "strike": ("strike", "industrial"),
    "breakdown": ("mechanical", "failure"),
    "engine": ("mechanical",),
    "deductible": ("deductible", "excess"),
    "excess": ("deductible", "excess"),
    "ambulance": ("ambulance",),
}

# Phrases that name one policy idea in several plain words.
PHRASES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(r"\b(?:already had|had before|existing before|before buying)\b"),
        ("pre", "existing"),
    ),
    (re.compile(r"\bchanged? (?:my|our) mind\b"), ("disinclination", "change", "mind")),
    (re.compile(r"\bafter (?:a|the) (?:loss|accident|crash)\b"), ("duties",)),
    # "How much will you pay" asks for a limit; "how much do I pay myself" for the excess.
    (
        re.compile(r"\bhow much\b(?! (?:do|will|must|would) i (?:have to )?pay)"),
        ("limit", "maximum", "sub"),
    ),
    (
        re.compile(r"\b(?:do|will|must|would) i (?:have to )?pay\b|\bpay (?:it )?myself\b"),
        ("deductible", "excess"),
    ),
    (re.compile(r"\bmore than usual\b|\bfar more\b"), ("unreasonable", "customary")),
    (re.compile(r"\bno insurance\b"), ("uninsured",)),
)


def search_terms(words: str) -> list[str]:
    """The distinct terms to search for: the query's own words, then policy words for them."""
    text = words.lower()
    own = [w for w in re.findall(r"\w+", text) if w not in STOPWORDS]
    if not own:  # a query of stopwords only still searches for what it says
        own = re.findall(r"\w+", text)
    terms = list(own)
    for word in own:
        terms.extend(THESAURUS.get(word, ()))
    for pattern, extra in PHRASES:
        if pattern.search(text):
            terms.extend(extra)
    return list(dict.fromkeys(terms))


class Ranked(NamedTuple):
    """One search result before it becomes a SearchHit: clause id, snippet, score."""

    clause_id: str
    snippet: str
    score: float


# How much of a sub-clause's match speaks for the clause it belongs to: the question "bag
# delayed" is answered by "What is covered" as much as by its first item.
PARENT_SHARE = 0.95
# How many FTS matches to rank for each result asked for.
CANDIDATES_PER_RESULT = 8


def rerank(
    matches: Sequence[Ranked],
    parent_of: Callable[[str], str | None],
    text_of: Callable[[str], str],
    limit: int,
) -> list[Ranked]:
    """Best first: a parent gets a share of its best child's score, and a clause whose words
    repeat a better one's (a form printed twice) is left out."""
    best: dict[str, Ranked] = {}
    for hit in matches:
        if hit.clause_id not in best or best[hit.clause_id].score < hit.score:
            best[hit.clause_id] = hit
        parent = parent_of(hit.clause_id)
        if parent is not None:
            share = Ranked(parent, hit.snippet, hit.score * PARENT_SHARE)
            if parent not in best or best[parent].score < share.score:
                best[parent] = share
    ranked = sorted(best.values(), key=lambda h: -h.score)
    seen: set[str] = set()
    out: list[Ranked] = []
    for hit in ranked:
        words = " ".join(re.findall(r"\w+", text_of(hit.clause_id).lower()))
        if words in seen:
            continue
        seen.add(words)
        out.append(hit)
        if len(out) == limit:
            break
    return out
