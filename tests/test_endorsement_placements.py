"""The endorsement reader on the placing phrases of a second round of drafting families: one
addition placed in two coverages, each with its container ("Paragraph 2., Exclusions of Section
I – Coverage A … and Paragraph 2., Exclusions of … Coverage B"), "Under X, the following is
added", a title "is added under" a part, a numbered part's caption over "The following exclusion
is added:", a part in brackets after the clause, and references that are not read because they
cannot be reduced safely."""

from __future__ import annotations

from claims_crew.policy.changes import read_changes
from tests.support.changes_read import read_as


def test_one_addition_placed_in_two_coverages_is_two_changes_each_with_its_container() -> None:
    text = (
        "The following exclusion is added to Paragraph 2.,\nExclusions of Section I – Coverage A – "
        "Bodily Injury And Property Damage Liability and Para-\ngraph 2., Exclusions of "
        "Section I – Coverage B – Personal And Advertising Injury Liability:\n"
        "This insurance does not apply to injury arising out of fireworks.\n"
    )
    assert read_as(text) == [
        ("add", "2", "Section I – Coverage A – Bodily Injury And Property Damage Liability"),
        ("add", "2", "Section I – Coverage B – Personal And Advertising Injury Liability"),
    ]
    # "Paragraphs A.4. and A.5." share one container: still one reference, two targets
    both = "Paragraphs A.4. and A.5. of the Common Policy Conditions are deleted.\n"
    assert read_as(both) == [
        ("delete", "A.4", "Common Policy Conditions"),
        ("delete", "A.5", "Common Policy Conditions"),
    ]


def test_under_a_part_the_following_is_added() -> None:
    text = (
        "LEASED AUTO COVERAGE\nUnder Paragraph C. – CERTAIN TRAILERS AND MOBILE EQUIP-\n"
        "MENT of SECTION I – COVERED AUTOS, the following is added:\n"
        "Any auto you lease for 30 days or more.\n"
    )
    assert read_as(text) == [("add", "C", "SECTION I – COVERED AUTOS")]
    words = "Under Property Coverages, Incidental Property Coverages, the following is added:\nX.\n"
    assert read_as(words) == [("add", "Incidental Property Coverages", "Property Coverages")]


def test_a_title_added_under_a_part_is_an_addition_to_the_part() -> None:
    text = (
        "Your policy is amended as follows:\n"
        "The Insuring Agreement—Key Replacement Coverage is added under Part VI—Towing Coverage:\n"
        "We will pay to replace lost keys.\n"
    )
    assert read_as(text) == [("add", "Part VI", "")]
    # the endorsement's own paragraph placed in the form: its words are elsewhere, not read
    own = "Paragraph E. of this endorsement is added to 2. Exclusions of Section I - Coverage B.\n"
    assert read_as(own) == []


def test_a_numbered_parts_caption_names_what_an_exclusion_is_added_to() -> None:
    text = (
        "Your policy is amended as follows:\nPart D - Coverage for Damage to Your Auto\n"
        "The following exclusion is added:\nNo coverage applies while the auto is raced.\n"
        "This exclusion does not apply to a parade.\n"
        "This exclusion applies only to collision coverage.\n"
    )
    # its exceptions are its own words, not changes
    assert read_as(text) == [("add", "Part D", "")]


def test_a_part_in_brackets_is_where_the_clause_lies() -> None:
    text = (
        'A. Who Is An Insured\nThe following are added, as "insureds," to Who Is An Insured '
        "(Section II):\n1. Any volunteer worker.\n"
    )
    assert read_as(text) == [("add", "Who Is An Insured", "Section II")]


def test_references_that_cannot_be_reduced_safely_are_not_read() -> None:
    # a section number with a clause label the reduction cannot place under it (OCR "11", "A.I.");
    # with a dash between part and label it is ISO's caption path (reading version 7 reads it)
    path = (
        "SECTION 11 LIABILITY COVERAGE A.I. WHO IS AN INSURED provision is amended by the "
        "addition of the following:\nd. Any partnership you form.\n"
    )
    assert read_as(path) == []
    # a clause of another endorsement, not of the form
    other = (
        "Paragraph 2. Exclusions under the Miscellaneous Professional Liability Coverage "
        "endorsement is replaced by the following:\n2. Exclusions\n"
    )
    assert read_as(other) == []


def test_a_caption_path_under_a_section_reaches_the_clause_after_it() -> None:
    text = (
        "SECTION II — LIABILITY COVERAGE — A.1. WHO IS AN INSURED provision is amended by the "
        "addition of the following:\nd. Any partnership you form.\n"
    )
    assert read_as(text) == [("add", "Section II.A.1", "")]


def test_amended_to_read_is_a_replacement() -> None:
    text = (
        "Paragraph 3. of the Appraisal Condition is amended to read as follows:\n"
        "3. Each party will pay its own appraiser.\n"
    )
    assert read_as(text) == [("replace", "3", "Appraisal Condition")]


def test_a_range_names_each_label_in_it() -> None:
    text = "Paragraphs a. through d. of the Duties Condition are deleted.\n"
    assert [c.target for c in read_changes([text])] == ["a", "b", "c", "d"]
    numbered = "Exclusions 2. through 4. of Section II do not apply.\n"
    assert [c.target for c in read_changes([numbered])] == ["2", "3", "4"]
    # labels of two lists are no range: not read rather than guessed
    mixed = "Paragraphs A.2. through B.4. of the Conditions are deleted.\n"
    assert read_changes([mixed]) == []
