"""The reader's safety rules (reading version 4): where a reading could reach the wrong clause,
or no clause, the change is not read, and its words stay the endorsement's uncovered text for a
person. Each wording here is drafted the way a family of real endorsements prints it."""

from __future__ import annotations

from claims_crew.policy.change_targets import reduce_reference
from claims_crew.policy.changes import read_changes
from tests.support.changes_read import read_as


def test_an_addition_that_names_no_clause_is_not_read() -> None:
    # ISO's "The following condition is added:" printed under no part of the form: it reaches
    # nothing, so a change with an empty target is not stated.
    text = "D. The following condition is added:\nMailing Of Notices\nWe will mail notice.\n"
    assert read_as(text) == []
    # The same words under a part of the form name that part.
    named = "D. The following condition is added to the General Conditions:\nWe will mail it.\n"
    assert read_as(named) == [("add", "General Conditions", "")]


def test_a_part_named_in_brackets_anywhere_is_where_the_clause_lies() -> None:
    printed = (
        "Subparagraph 1. Who is an Insured of Paragraph A. Coverage "
        "(SECTION II – LIABILITY COVERAGE) is amended to include the following:\n"
        "a. Any subsidiary of yours.\n"
    )
    assert read_as(printed) == [("add", "A.1", "SECTION II – LIABILITY COVERAGE")]


def test_a_section_that_cannot_be_kept_leaves_the_reference_unread() -> None:
    # The same label sits under several parts ("C." under Section I and Section II): a target
    # whose stated part could not be kept could reach the wrong clause.
    garbled = reduce_reference("Paragraph C. Who Is An Insured of BPM P 2—Section II —Liability")
    assert garbled.targets == ()
    lost = reduce_reference("Paragraph C. Who Is An Insured (see Section II) of the form")
    assert lost.targets == ()
    # An arabic section number is the target itself, and a kept section is fine.
    assert reduce_reference("Section 5").targets == ("5",)
    kept = reduce_reference("Paragraph C. of Section II – Liability")
    assert (kept.targets, kept.within) == (("C",), "Section II – Liability")


def test_the_declarations_and_the_schedule_are_not_clauses_of_the_form() -> None:
    text = (
        "A. Subsidiaries As Insureds\n"
        "The Named Insured shown in the Declarations is amended to include:\n"
        "(1) A subsidiary organization of yours.\n"
        "B. Item 2 of the Schedule is replaced by the following:\n$5,000\n"
    )
    assert read_as(text) == []
    assert reduce_reference("Paragraph A.2. of the Declarations").targets == ()


# Phrase families read since reading version 4, each drafted as its family prints it.


def test_a_label_split_by_a_space_is_one_label() -> None:
    # ISO state cancellation endorsements (CX 02 26 and kin), as a justified line prints them.
    text = (
        "A. Paragraphs 5. b. and 5. c. of the Cancellation provisions of Section III — "
        "Conditions are replaced by the following:\nb. Policies In Effect 60 Days\nWe may cancel."
        "\nc. Policies In Effect Longer\nWe may cancel only for cause.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target) for c in read] == [("replace", "5.b"), ("replace", "5.c")]
    assert read[1].text.startswith("c. Policies In Effect Longer")


def test_ocr_section_numerals_are_roman_where_the_endorsement_numbers_sections_so() -> None:
    ocr = (
        "1. Tile following is added to SECTION 11— WHO Is\nAN INSURED:\n"
        "Any person you agree in a written contract to add.\n"
        "This endorsement does not change Section III — Limits Of Insurance.\n"
    )
    assert [(c.kind, c.target) for c in read_changes([ocr])] == [("add", "Section II")]
    # A form whose sections run to 11, and no Roman numeral anywhere: "Section 11" as printed.
    arabic = "The following is added to Section 11:\nDelayed baggage is covered.\n"
    assert [(c.kind, c.target) for c in read_changes([arabic])] == [("add", "11")]


def test_iso_additional_insured_wording_adds_to_who_is_an_insured() -> None:
    text = (
        "1. Section II Who Is An Insured is amended\nto include as an additional insured any\n"
        "person for whom you have agreed to add one.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target) for c in read] == [("add", "Section II")]
    assert read[0].text.startswith("as an additional insured any")


def test_a_labelled_paragraph_added_to_a_clause_is_an_addition_to_it() -> None:
    text = (
        "Subparagraph d. is added to Subparagraph 1. Who is An Insured of Paragraph A. Coverage "
        "(SECTION II - LIABILITY COVERAGE) as follows:\nd. The lessor of a covered auto.\n"
    )
    assert read_as(text) == [("add", "A.1", "SECTION II - LIABILITY COVERAGE")]
