"""Amendatory wording read by how it is built (reading version 5): caption paths naming several
clauses, a labelled reference after its captions, definitions named by label and term, "amended
to add" with the words in the sentence, the active voice, pages printed as one run of text."""

from __future__ import annotations

import pytest

from claims_crew.policy.changes import read_changes
from claims_crew.policy.own_exclusions import found
from claims_crew.policy.reference_openings import after_when
from tests.support.changes_read import read_as


def test_a_caption_path_names_each_clause_by_its_full_label_path() -> None:
    text = (
        "1. A. Coverage, 5. Additional Coverages, c. Fire Department Service Charge, i. Civil "
        "Authority, k. Forgery Or Alteration, Paragraph (4), m. Business Income from Dependent "
        "Properties, Paragraphs (1) and (5)(a) are replaced by the following:\n"
        "c. Fire Department Service Charge\nWe will pay up to $10,000.\n"
    )
    within = "A. Coverage, 5. Additional Coverages"
    assert read_as(text) == [
        ("replace", t, within) for t in ("A.5.c", "A.5.i", "A.5.k.(4)", "A.5.m.(1)", "A.5.m.(5)(a)")
    ]


def test_a_list_that_skips_a_level_is_not_a_caption_path() -> None:
    # "A." then "c." skips ISO's numbered level: not read as a path, so nothing is placed
    text = (
        "A. Coverage, c. Fire Department Service Charge, i. Civil Authority, k. Forgery Or "
        "Alteration are replaced by the following:\nWe will pay.\n"
    )
    assert all(t not in ("A.c", "A.i", "A.k") for _, t, _ in read_as(text))


def test_a_labelled_reference_after_its_captions_lies_where_they_say() -> None:
    text = (
        "SECTION I – PERILS INSURED AGAINST Forms HO 00 02 And HO 00 08 Paragraph 8. is "
        "replaced by the following: 8. Vandalism Or Malicious Mischief This peril does not "
        "include loss."
    )
    assert read_as(text) == [
        ("replace", "8", "SECTION I – PERILS INSURED AGAINST Forms HO 00 02 And HO 00 08")
    ]


def test_a_definition_named_by_letter_and_term_is_amended_to_add_words_in_the_sentence() -> None:
    text = (
        "1. With respect to the Cyber Crime insuring agreement only, SECTION III – DEFINITIONS, "
        "FF. Incident is amended to add a Cyber Crime Incident.\n"
        "2. With respect tothe Cyber Crime insuring agreement only, SECTION III – DEFINITIONS, "
        "JJ. Loss is amended to add Cyber Crime Loss.\n"
        "3. The following is added to SECTION III – DEFINITIONS:\nCyber Crime Loss\nDirect loss.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target, c.within) for c in read] == [
        ("add", "Incident", "SECTION III – DEFINITIONS"),
        ("add", "Loss", "SECTION III – DEFINITIONS"),
        ("add", "Section III", ""),
    ]
    assert read[0].text == "a Cyber Crime Incident."


def test_the_active_voice_brings_the_endorsements_own_paragraph() -> None:
    text = (
        "1. Paragraph D. of this endorsement replaces\nexclusion a. of 2. Exclusions in Section "
        "I -\nCoverage A - Bodily Injury and Property\nDamage.\n2. Other words.\n"
        "D. Assault And Battery\nThis insurance does not apply to assault.\nE. Other\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target) for c in read] == [("replace", "2.a")]
    assert "Coverage A" in read[0].within
    assert read[0].text == "D. Assault And Battery\nThis insurance does not apply to assault."


def test_a_page_printed_as_one_run_of_text_keeps_its_wording() -> None:
    text = (
        "HOMEOWNERS HO 01 31 12 12 THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT "
        "CAREFULLY. HO 01 31 12 12 © Insurance Services Office, Inc., 2012 Page 1 of 7 SPECIAL "
        "PROVISIONS – NEW YORK SECTION I – PROPERTY COVERAGES E. Additional Coverages 6. Credit "
        "Card, Electronic Fund Transfer Card Or Access Device, Forgery And Counterfeit Money "
        "Paragraph 6.a. is replaced by the following: a. We will pay up to $1,000 for the loss."
    )
    assert [(k, t) for k, t, _ in read_as(text)] == [("replace", "6.a")]


def test_a_page_named_before_the_clause_is_no_part_of_its_name() -> None:
    text = (
        "MASSACHUSETTS ENDORSEMENT (ND-PVSE 07 14) With respect to coverage provided by this "
        "endorsement, the provisions of the policy apply unless modified by this endorsement. "
        "On Page 3, Definitions is modified by adding the following: 11. Personal Vehicle "
        "Sharing Program means a program."
    )
    assert read_as(text) == [("add", "Definitions", "")]


def test_added_to_and_incorporated_into_names_no_place() -> None:
    text = (
        "The following clause and definitions are added to and incorporated into the policy "
        "and shall replace\nand supersede any existing and comparable provision:\n1. The policy "
        "shall exclude:\n"
    )
    # nothing is read from "added to and incorporated into"; the policy's own exclusion that
    # follows is (reading version 7, own_exclusions.py), its words its own sentence only
    read = read_changes([text])
    assert [(c.kind, c.target, c.within) for c in read] == [("add", "Exclusions", "policy")]
    assert read[0].text == "The policy shall exclude:"


@pytest.mark.parametrize(
    "opening", ["It is agreed and declared that", "It is understood and further agreed that"]
)
def test_either_agreed_opening_leads_a_reference_and_an_exclusion(opening: str) -> None:
    # Each was once known to one of two copies of the pattern only (reference_openings.py).
    assert after_when(f"{opening} for the machinery insured, exclusions c and d") == (
        "exclusions c and d"
    )
    assert found(f"{opening} this policy excludes loss caused by war.") == [(0, 0, 0)]
