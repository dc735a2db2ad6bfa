"""Where a quote's fragments may come from: a fact's quote from one sentence of the claim, a few
words elided at most; a clause's from one sentence, or from a list's lead-in and one of its
items. Quotes that join two sentences with "…" are refused, on the sample and the real policies.
"""

from __future__ import annotations

import json
import re

import pytest

from claims_crew.policy.document import PolicyDocument
from claims_crew.resolver.config import FactCues
from claims_crew.resolver.fact_sources import names_fact
from claims_crew.resolver.quotes import CLAUSE_QUOTES, FACT_QUOTES, fold, quote_in, quote_miss
from claims_crew.resolver.reread import read_clause
from tests.support.crew import BURST_QUOTE, FOUND_BY_TENANT, PLUMBER_VISITED, STITCHED
from tests.support.paths import ROOT
from tests.support.real_policies import OpenReal

BURST = json.loads((ROOT / "claims" / "inbox" / "C-1043.json").read_text(encoding="utf-8"))
BURST_TEXT = BURST["description"]
ABBREVIATED = "The leak started on 3 Nov. 2025, when Mr. Smith called. No. 4471 was given."


@pytest.mark.parametrize(
    ("text", "quote", "miss"),
    [
        (FOUND_BY_TENANT, STITCHED, "across_sentences"),
        (FOUND_BY_TENANT, "moved in. The plumber visited on 3 November 2025", "across_sentences"),
        (FOUND_BY_TENANT, PLUMBER_VISITED, None),
        (FOUND_BY_TENANT, "The plumber … on 3 November 2025", None),
        (FOUND_BY_TENANT, "The plumber visited on 4 November 2025", "absent"),
        (BURST_TEXT, BURST_QUOTE, None),
        # In prose a semicolon joins two statements: each is a sentence of its own.
        (BURST_TEXT, "The damage started that morning; there was no sign", "across_sentences"),
        (BURST_TEXT, "At about 7am on 2 November 2025 … water poured", "wide_gap"),
        (ABBREVIATED, "The leak started on 3 Nov. 2025, when Mr. Smith called", None),
        (ABBREVIATED, "called. No. 4471", "across_sentences"),
    ],
)  # fmt: skip
def test_a_fact_quote_is_one_sentence_of_the_claim(text: str, quote: str, miss: str | None) -> None:
    assert quote_miss(quote, FACT_QUOTES.read(text)) == miss


@pytest.mark.parametrize(
    ("clause", "quote", "found"),
    [
        # A lead-in and one of its items, the list's other items left out.
        ("7", "We do not cover loss or damage caused by: … failure or lack of grout", True),
        ("4.2", "We cover loss or damage caused by water … or a household appliance", True),
        ("4.2(b)", "sudden and accidental … household appliance", True),
        # Two sentences joined: a grant's words with an item the next sentence takes away.
        ("4.2(c)", "Cover under 4.2 includes … repair the pipe, appliance or fitting", False),
        ("4.4", "theft of contents from an outbuilding … while the home is unoccupied", False),
        # Verbatim across a sentence's end: every word is the clause's, in its order.
        ("4.4(c)", "forcible and violent. We do not cover theft", True),
    ],
)
def test_a_clause_quote_may_skip_within_a_sentence_or_a_list_but_never_join_two_sentences(
    home_policy: PolicyDocument, clause: str, quote: str, found: bool
) -> None:
    read = read_clause(home_policy, clause)
    assert read is not None
    assert quote_in(quote, read.passage) is found


def test_the_real_policies_lists_still_verify_and_their_sentences_cannot_be_joined(
    real_doc: OpenReal,
) -> None:
    """On the ISO homeowners form, whose list items end in "." as often as in ";": the end of
    every lead-in joined to the first words of each of its items verifies."""
    doc = real_doc("iso_ho3_ho0003_1000_us_homeowners.pdf").doc
    joined = 0
    for clause in doc.clauses:
        own = re.split(r"(?<=[.?!])\s", fold(clause.text))[-1]
        if not own.endswith(":") or not (items := doc.children(clause.id)):
            continue
        passage = CLAUSE_QUOTES.read(doc.full_text(clause.id))
        for item in items:
            first = re.split(r"(?<=[.?!;])\s", fold(item.text).partition(" ")[2])[0]
            quote = f"{' '.join(own.split()[-5:])} … {' '.join(first.split()[:5])}"
            assert quote_in(quote, passage), (clause.id, quote)
            joined += 1
    assert joined > 100
    excluded = CLAUSE_QUOTES.read(doc.full_text("Section I.C.4"))
    assert quote_in("We do not cover: … Property of roomers, boarders and other tenants", excluded)
    assert not quote_in("Hovercraft and parts … credit cards", excluded)


@pytest.mark.parametrize(
    ("quote", "named"),
    [
        ("The leak began on the morning of 3 November 2025.", True),
        ("the damage started on 6 October 2025", True),
        ("The ceiling has been damp since 6 October 2025", True),
        ("It was FIRST   NOTICED on 6 October 2025", True),
        (PLUMBER_VISITED, False),
        ("Yours sincerely, 6 October 2025", False),  # "since" is a whole word, not a prefix
        ("The restart of the boiler on 6 October 2025", False),
    ],
)
def test_a_start_date_quote_must_name_the_start(quote: str, named: bool) -> None:
    assert names_fact(quote, FactCues().damage_start_date) is named
