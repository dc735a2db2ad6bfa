"""Lookup forgives how people and models write clause ids; misses are typed and suggest ids."""

from __future__ import annotations

import pytest

from claims_crew.policy.document import LookupMiss, PolicyDocument
from claims_crew.policy.ids import clause_key
from claims_crew.policy.library import PolicyLibrary


@pytest.mark.parametrize(
    ("reference", "key"),
    [
        ("4.2(b)", "4/2/b"),
        ("4.2 (b)", "4/2/b"),
        ("§4.2(b)", "4/2/b"),
        ("clause 4.2b", "4/2/b"),
        ("Clause 4.2.b", "4/2/b"),
        ("Section I A.1", "i/a/1"),
        ("SECTION I.A.1", "i/a/1"),
        ("Section I~2.A.1", "i/a/1"),
        ("section", ""),
    ],
)
def test_clause_key(reference: str, key: str) -> None:
    assert clause_key(reference) == key


@pytest.mark.parametrize("reference", ["4.2(b)", "4.2 (b)", "§4.2(b)", "clause 4.2b", " 4.2(B) "])
def test_forgiving_lookup_on_the_home_policy(home_policy: PolicyDocument, reference: str) -> None:
    found = home_policy.lookup(reference)
    assert not isinstance(found, LookupMiss)
    assert found.id == "4.2(b)"
    assert found.kind == "grant"
    assert "sudden and accidental discharge of water" in found.text


def test_section_style_lookup_on_the_auto_policy(sample_library: PolicyLibrary) -> None:
    doc = sample_library.open("MR-AUTO-001")
    found = doc.lookup("Section I A.1")
    assert not isinstance(found, LookupMiss)
    assert found.id == "Section I.A.1"
    assert found.parent == "Section I.A"


def test_a_miss_is_a_value_that_names_near_ids(home_policy: PolicyDocument) -> None:
    miss = home_policy.lookup("4.9")
    assert isinstance(miss, LookupMiss)
    assert "4.2" in miss.near and "4.9" not in miss.near
    assert "4.9" in miss.message()


def test_full_text_includes_sub_clauses_in_order(home_policy: PolicyDocument) -> None:
    text = home_policy.full_text("4.2")
    assert text.index("(a) a sudden burst") < text.index("(b) sudden and accidental")
    assert text.index("(b) sudden") < text.index("(c) water escaping")


def test_search_ranks_the_clause_that_holds_the_words(home_policy: PolicyDocument) -> None:
    hits = home_policy.search("continuous repeated seepage over weeks or months")
    assert hits[0].clause.id == "7.1(a)"
    assert hits[0].clause.kind == "exclusion"
    assert "[seepage]" in hits[0].snippet
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@pytest.mark.parametrize("words", ["", "   ", "AND OR NOT", '"*"'])
def test_search_survives_empty_or_operator_only_queries(
    home_policy: PolicyDocument, words: str
) -> None:
    assert isinstance(home_policy.search(words), list)
