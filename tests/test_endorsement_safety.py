"""Reading version 6: amendatory wording of insurers' own and state amendatory forms read by how
it is built ("deleted in its entirety and the following is inserted", a part named before its
clause, a heading's part kept under it), and words the reader must refuse rather than guess at (a
part of a clause told by its place, a part said to lie in its own paragraph, a reference whose
quotation runs in from another column's text)."""

from __future__ import annotations

from claims_crew.policy.changes import read_changes
from claims_crew.policy.run_together import respaced
from tests.support.changes_read import read_as


def test_deleted_and_the_following_inserted_is_a_replace_under_its_part() -> None:
    text = (
        "2. Section X. OTHER CONDITIONS, subsection A. Cancellation, is deleted in its entirety "
        "and the following is inserted:\n"
        "A. CANCELLATION: This policy may be cancelled by the Named Insured by mailing notice.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target, c.within) for c in read] == [
        ("replace", "A", "Section X. OTHER CONDITIONS")
    ]
    assert read[0].text.startswith("A. CANCELLATION: This policy may be cancelled")


def test_deleted_and_the_following_substituted_is_a_replace() -> None:
    text = (
        "1. Exclusion 3. of Section II – Exclusions is deleted and the following is "
        "substituted:\n3. Pollution, unless sudden and accidental.\n"
    )
    assert read_as(text) == [("replace", "3", "Section II – Exclusions")]


def test_a_caption_in_capitals_before_the_clause_is_where_it_lies() -> None:
    text = (
        "CONDITIONS Section 6.8 NOTICE OF CANCELLATION is deleted and replaced by the following:\n"
        "6.8a Cancellation\n1. The first Named Insured may cancel this policy.\n"
    )
    assert read_as(text) == [("replace", "6.8", "CONDITIONS")]


def test_a_part_named_before_its_paragraph_is_where_the_paragraph_lies() -> None:
    text = (
        "SECTION I – COVERED AUTOS , paragraph C. Certain Trailers, Mobile Equipment and "
        "Temporary Substitute Autos is amended by adding the following at the end of the "
        "existing language:\nAny auto you hire while a covered auto is out of service.\n"
    )
    assert read_as(text) == [("add", "C", "SECTION I – COVERED AUTOS")]


def test_a_heading_keeps_the_part_it_states_for_the_clauses_under_it() -> None:
    text = (
        "2. Paragraph 4. of Section IV – Commercial General Liability Conditions is amended as "
        "follows:\na. The following is added to Paragraph a. Primary Insurance:\n"
        "This insurance is primary to the additional insured's own policy.\n"
    )
    assert read_as(text) == [
        ("add", "a", "Section IV – Commercial General Liability Conditions, 4")
    ]


def test_a_part_of_a_clause_told_by_its_place_is_not_read() -> None:
    # Read as a change to Section IX, the new sentence would replace all of Section IX.
    text = (
        "1. The preamble sentence of Section IX. EXTENDED REPORTING PERIODS, is deleted in its "
        "entirety and the following is inserted:\nIf the Named Insured nonrenews this policy, "
        "the Named Insured shall have the right to an extended reporting period.\n"
    )
    assert read_as(text) == []


def test_a_part_said_to_lie_in_its_own_paragraph_is_not_read() -> None:
    # Two columns read straight across: a caption's last word, then the part, then "in" a
    # paragraph of it; "Section II" is no clause of "Paragraph A.".
    text = (
        "DAMAGE\nSECTION II – LIABILITY COVERAGE in Paragraph A.\nCoverage at 1. Who Is An "
        "Insured is amended to include the following:\nd. Any subsidiary of yours.\n"
    )
    assert read_as(text) == []


def test_a_reference_whose_quotation_runs_in_from_another_column_is_not_read() -> None:
    text = (
        'The following is added to SECTION IV — damage" to premises rented to the\n'
        "COMMERCIAL GENERAL LIABILITY CONDITIONS, Additional Insured or temporarily occupied\n"
        "Paragraph 4. Other Insurance:\nThis insurance is primary.\n"
    )
    assert read_as(text) == []


def test_a_quoted_term_printed_whole_is_still_read() -> None:
    text = (
        '1. Under Definitions, the definition of "actual cash value" is replaced by the '
        'following:\n"Actual cash value" means the cost to repair, less depreciation.\n'
    )
    assert read_as(text) == [("replace", "actual cash value", "Definitions")]


def test_a_condition_restated_in_its_entirety_is_a_replace() -> None:
    text = (
        "Condition 8 is restated in its entirety to read:\n"
        "8. CONTRACT OF INDEMNITY\nThis policy is a contract of indemnity.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target) for c in read] == [("replace", "8")]
    assert read[0].text.startswith("8. CONTRACT OF INDEMNITY")


def test_a_clause_further_amended_by_adding_gets_the_addition() -> None:
    text = (
        "Condition 7.a. of this policy is deleted and replaced with the following:\n"
        "a. To Pay the Amount of Insurance.\n"
        "Condition 1 of this policy is further amended by adding the following subparagraph v.:\n"
        'v. "Bond": the evidence of indebtedness.\n'
    )
    assert [(c.kind, c.target) for c in read_changes([text])] == [("replace", "7.a"), ("add", "1")]


def test_a_reference_begins_at_the_line_that_names_its_clause() -> None:
    # The line before ends no sentence (a copy's cut): its words are not the reference's.
    text = (
        "ii. With regard to Condition 1.j.i.(c), the Company reserves all rights and defenses\n"
        "Condition 1 of this policy is further amended by adding the following subparagraph v.:\n"
        'v. "Bond": the evidence of indebtedness.\n'
    )
    assert [(c.kind, c.target) for c in read_changes([text])] == [("add", "1")]


def test_a_reference_wrapped_after_of_keeps_its_first_line() -> None:
    text = (
        "2. Paragraph 4. of\nSection IV – Conditions is deleted and replaced by the following:\n"
        "4. Other Insurance\nThis insurance is primary.\n"
    )
    assert read_as(text) == [("replace", "4", "Section IV – Conditions")]


def test_an_exclusion_sentence_in_the_words_an_exclusion_brings_is_no_change_of_its_own() -> None:
    # ISO's wording: the exclusion's own sentence, inside the words the phrase brings in
    text = (
        "The following exclusion is added to Paragraph 2. Exclusions of Section I:\n"
        "This insurance does not apply to any injury arising out of a virus.\n"
        "This policy does not apply to any loss arising out of mould.\n"
    )
    assert read_as(text) == [("add", "2", "Section I")]


def test_we_and_this_insurance_exclude_nothing_of_the_policy_on_their_own() -> None:
    # an endorsement granting a coverage of its own, then limiting it
    text = (
        "We will pay up to $5,000 for spoiled food.\n"
        "We will not pay for loss caused by a power outage off the premises.\n"
        "This insurance does not apply to food held for sale.\n"
    )
    assert read_as(text) == []


def test_an_exclusion_of_the_policy_after_a_condition_or_by_the_endorsement_is_not_read() -> None:
    text = (
        "If the insured fails to report a loss, this policy does not cover the loss.\n"
        "This endorsement shall not exclude damage which results from a Defined Peril.\n"
    )
    assert read_as(text) == []


def test_a_roman_numeral_standing_alone_or_as_a_part_is_not_read_as_a_figure() -> None:
    # only an I right after a capital letter's full stop is OCR's 1; "Section II.A" stays
    assert read_as("Paragraph C. of Section I is deleted.") == [("delete", "C", "Section I")]
    assert read_as(
        "SECTION II – COVERED AUTOS LIABILITY COVERAGE – A.1. WHO IS AN INSURED is deleted."
    ) == [("delete", "Section II.A.1", "")]


def test_a_quoted_term_closing_mid_sentence_does_not_cut_the_reference() -> None:
    # '."' ends a sentence only where the next word does not go on in lower case: the
    # reference reads as it would with no full stop there
    text = 'Paragraph 2. of the "Insured Contract." definition in Section V is deleted.'
    assert read_as(text) == read_as(text.replace('."', '"')) != []


def test_definitions_amended_together_or_words_that_define_nothing_are_not_read() -> None:
    # several definitions given anew: where each one's words end is not read
    several = "The following definitions are amended: 2. Accident means a. 5. Loss means b.\n"
    assert read_as(several) == []
    # words that are no definition ("means" never follows a term)
    assert read_as("The following definition is amended: delete the word sudden.\n") == []
    # an addition that is not a definition names no place, as before
    assert read_as("The following is added:\nWe will pay for food.\n") == []


def test_a_page_with_its_spaces_is_left_as_printed_whatever_its_words() -> None:
    page = (
        "Paragraph 4. of Section IV is amended as follows: the words\n"
        "thefollowingisaddedtoparagrapha. are a product name printed as one word in a long line.\n"
    )
    assert respaced(page) == page
    # run together, a verb inside a longer word is no phrase: "crisisamended" stays one word
    joined = "Theinsuredscrisisamendedplanappliesonlyduringthepolicyperiodasdeclared.\n" * 3
    assert read_as(joined) == []


def test_a_limit_increased_with_no_words_restated_and_a_date_are_not_read() -> None:
    # the amount changes, no wording is given in the clause's place: left for a person
    assert read_as("The Fire Department Service Charge Limit is increased to $5,000.\n") == []
    # the date a change applies from is never a clause's number
    text = (
        "It is agreed that with effect from 1 July, 2020 the policy is amended to read as "
        "follows: cover ends at 70.\n"
    )
    assert all(t not in ("1", "2020") for _, t, _ in read_as(text))


def test_an_exclusion_with_no_place_or_said_of_one_coverage_is_not_read_as_the_policys() -> None:
    assert (
        read_as("The following exclusion is added:\nThis insurance does not apply to mould.\n")
        == []
    )
    assert read_as("With respect to Coverage E, the insurance does not apply to dog bites.\n") == []
    assert read_as("This insurance does not cover any loss arising from nuclear radiation.\n") == []


def test_captions_not_topped_by_a_part_or_after_a_sentence_give_no_place() -> None:
    # no part of the form above the caption: nothing is taken from it
    text = "E. Additional Coverages\nParagraph 6.a. is replaced by the following:\na. We pay.\n"
    assert read_as(text) == [("replace", "6.a", "")]
    # a sentence between the part and the change ends the caption run
    text = (
        "SECTION II – LIABILITY\nWe cover you.\nParagraph 3. is deleted.\n"
        "SECTION I – CONDITIONS\nParagraph 2. of the Loss Payment Condition is deleted.\n"
    )
    assert read_as(text) == [("delete", "3", ""), ("delete", "2", "Loss Payment Condition")]


def test_the_of_of_a_title_does_not_put_a_number_under_the_label_before_it() -> None:
    # "Coverage C … Limits Of Liability Item 3." is no "3. of C."
    text = "Coverage C – Special Limits Of Liability Item 3. is deleted.\n"
    assert all(t != "3.C" for _, t, _ in read_as(text))
    assert read_as("Paragraph (5) of a. is deleted.\n") == [("delete", "a.(5)", "")]


def test_the_forms_an_endorsement_modifies_are_still_no_part_of_its_wording() -> None:
    text = (
        "This endorsement modifies insurance provided under the following:\n"
        "COMMERCIAL GENERAL LIABILITY COVERAGE PART\nPRODUCTS/COMPLETED OPERATIONS LIABILITY "
        "COVERAGE PART\nParagraph 2. is deleted.\n"
    )
    assert read_as(text) == [("delete", "2", "")]


def test_an_opening_about_the_endorsements_own_coverage_places_nothing() -> None:
    text = (
        "With respect to coverage provided by this endorsement, Paragraph 2. of Section IV is "
        "deleted.\n"
    )
    assert read_as(text) == [("delete", "2", "Section IV")]


def test_we_exclude_in_the_words_of_a_change_listed_under_the_policys_amendment() -> None:
    text = (
        "This policy is amended as follows:\nA. The following is added to Coverage C:\n"
        "Golf carts are covered. We will not pay for loss to a golf cart while racing.\n"
    )
    assert read_as(text) == [("add", "C", "")]
