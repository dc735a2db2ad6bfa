"""Amendatory wording read by how it is drafted (reading version 7): an exclusion a stand-alone
endorsement states of the whole policy in its own words, a sentence that ends with a quoted
term, a list item's reference on a line of its own, OCR's "I" for "1" in a label, and
definitions added or given anew with no part named."""

from __future__ import annotations

from claims_crew.policy.changes import read_changes
from tests.support.changes_read import read_as

WHOLE_POLICY = ("add", "Exclusions", "policy")


def test_the_policy_as_subject_of_an_exclusion_adds_it_to_the_policys_exclusions() -> None:
    # London-market clause: its operative sentence opens with "notwithstanding …"
    text = (
        "1. This policy covers losses attributable to direct physical loss.\n"
        "Consequently and notwithstanding any other provision of this policy to the contrary,\n"
        "this policy does not insure any loss arising out of a Communicable Disease.\n"
        "2. For the purposes of this endorsement, loss includes any cost to clean-up.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target, c.within) for c in read] == [WHOLE_POLICY]
    assert read[0].text.startswith("Consequently and notwithstanding")


def test_an_insurer_or_the_insurance_of_the_policy_as_subject_adds_an_exclusion() -> None:
    assert read_as(
        "EXCLUSION OF SNOWPLOW OPERATIONS SG 02 (Ed. 6-96)\nIt is agreed that the insurance "
        "afforded by this policy shall not apply with respect to any claim arising from snow.\n"
    ) == [WHOLE_POLICY]
    assert read_as("The policy shall exclude:\n1.1.1. any loss arising from a cyber act;\n") == [
        WHOLE_POLICY
    ]


def test_we_exclude_under_a_sentence_amending_the_whole_policy() -> None:
    text = (
        "On Page 3, Definitions is modified by adding the following: 11. Program means a plan. "
        "The policy is additionally modified by this endorsement, as follows: While your auto "
        "is: a. Enrolled; and b. Being used. We will not pay for any claim for injury.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target, c.within) for c in read] == [
        ("add", "Definitions", ""),
        WHOLE_POLICY,
    ]
    assert "The policy is additionally" not in read[0].text


def test_a_sentence_ending_on_a_quoted_term_ends_before_the_next_items_reference() -> None:
    text = (
        'This provision does not apply to the additional insured\'s "autos."\n'
        "Additional Insured When Required by Contract\n"
        "(1) Paragraph A.1. — WHO IS AN INSURED —\nof Section II — Liability Coverage is\n"
        "amended to add:\nd. When you have agreed in a written contract.\n"
    )
    assert read_as(text) == [("add", "A.1", "Section II — Liability Coverage")]


def test_ocr_i_or_l_after_a_capital_letters_full_stop_is_the_figure_one() -> None:
    assert read_as(
        "Paragraph A.I. of Section II is deleted.\nParagraph B.l.b. of Section II is deleted."
    ) == [
        ("delete", "A.1", "Section II"),
        ("delete", "B.1.b", "Section II"),
    ]


def test_a_part_numbered_in_figures_before_a_dash_and_a_label_path_is_where_it_lies() -> None:
    text = (
        "SECTION 11 — LIABILITY COVERAGE — A.1. WHO IS AN INSURED provision is amended by the "
        "addition of the following:\nd. Any business entity newly acquired.\n"
    )
    assert read_as(text) == [("add", "A.1", "SECTION 11 — LIABILITY COVERAGE")]


def test_a_definition_given_anew_replaces_the_term_it_defines_in_the_definitions() -> None:
    text = (
        "The following definition is amended as it relates to covered equipment : 2. Accident "
        "means sudden and accidental breakdown. The following definitions are added: 41. Case "
        "Management Service means services of a manager.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target, c.within) for c in read] == [
        ("replace", "Accident", "Definitions"),
        ("add", "Definitions", ""),
    ]
    assert read[0].text == "2. Accident means sudden and accidental breakdown."
    assert read[1].text.startswith("41. Case Management Service")


RUN_TOGETHER = (
    "3.WithrespecttotheseAdditionalInsureds,thefollowingisaddedto\n"
    "SECTIONIII-LIMITSOFINSURANCE:\n"
    "Themostwewillpayistheamountofinsurancerequiredbythecontractoragreement.\n"
    "Condition4.OtherInsuranceofSECTIONIV-COMMERCIALGENERALLIABILITYCONDITIONS\n"
    "isamendedasfollows:\n"
    "a.Thefollowingisaddedtoparagrapha.PrimaryInsurance:\n"
    "Thisinsuranceisprimarytoandwillnotseekcontributionfromanyotherinsurance.\n"
)


def test_a_page_that_lost_its_spaces_is_read_by_the_readers_own_words() -> None:
    read = read_changes([RUN_TOGETHER])
    assert [(c.kind, c.target, c.within) for c in read] == [
        ("add", "Section III", ""),
        ("add", "a", "SECTION IV - COMMERCIALGENERALLIABILITYCONDITIONS, 4"),
    ]
    # the words a change brings stay as printed
    assert (
        read[1].text == "Thisinsuranceisprimarytoandwillnotseekcontributionfromanyotherinsurance."
    )


def test_a_sum_increased_to_read_as_follows_from_a_date_is_restated_whole() -> None:
    text = (
        "CONTRACT CHANGES It is understood and agreed that with effect from 9 th July, 2015 the "
        "Outdoor Sculptures Sum Insured is increased by USD254,500 to read as follows: SUM "
        "INSURED: Outdoor sculptures: 1. USD3,497,330 any one loss.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target, c.within) for c in read] == [
        ("replace", "Outdoor Sculptures Sum Insured", "")
    ]
    assert read[0].text.startswith("SUM INSURED: Outdoor sculptures")


def test_an_exclusion_added_to_this_policy_goes_to_its_exclusions_once() -> None:
    text = (
        "It is hereby noted and agreed that the following exclusion is added to this policy:\n"
        "WAR EXCLUSION\nThis policy does not cover loss arising from war.\n"
    )
    read = read_changes([text])
    assert [(c.kind, c.target, c.within) for c in read] == [("add", "Exclusions", "this policy")]
    assert read[0].text.endswith("This policy does not cover loss arising from war.")


def test_the_openings_of_insurers_and_london_market_exclusions() -> None:
    for text in (
        "This policy is amended to exclude any loss arising from terrorism.",
        "In consideration of the premium charged, it is agreed that this policy shall not apply "
        "to any claim made by one insured against another insured.",
        "Notwithstanding any provision to the contrary within this insurance, this insurance "
        "excludes any loss arising from asbestos.",
        # LMA3030's war and terrorism exclusion
        "Notwithstanding any provision to the contrary within this insurance or any endorsement "
        "thereto it is agreed that this insurance excludes loss caused by war.",
    ):
        assert read_as(text) == [WHOLE_POLICY], text


def test_a_definition_named_by_its_quoted_term_lies_in_the_part_after_it() -> None:
    text = (
        'The definition of "insured contract" in the Definitions Section is replaced by the '
        'following:\n9. "Insured contract" means a lease of premises.\n'
    )
    assert read_as(text) == [("replace", "insured contract", "Definitions Section")]


def test_a_part_extended_to_include_gets_the_addition() -> None:
    text = (
        "It is agreed that Section 4 Exclusions is extended to include the following:\n"
        "4.12 Asbestos\n"
    )
    assert read_as(text) == [("add", "4", "")]


def test_the_captions_above_a_bare_label_say_where_it_lies() -> None:
    text = (
        "SECTION II – EXCLUSIONS\n"
        "E. Coverage E – Personal Liability And Coverage F – Medical Payments To Others\n"
        "Paragraph 1. Expected Or Intended Injury is replaced by the following:\n"
        "1. Expected Or Intended Injury\nBodily injury which is expected.\n"
        "PART D – COVERAGE FOR DAMAGE TO YOUR AUTO\n"
        "Exclusion 2. is replaced by the following:\n2. Loss due to wear.\n"
    )
    assert read_as(text) == [
        (
            "replace",
            "1",
            "SECTION II – EXCLUSIONS, E. Coverage E – Personal Liability And Coverage F – "
            "Medical Payments To Others",
        ),
        ("replace", "2", "PART D – COVERAGE FOR DAMAGE TO YOUR AUTO"),
    ]


def test_an_item_under_the_captions_of_a_homeowners_form_lies_where_they_say() -> None:
    text = (
        "SECTION I – PROPERTY COVERAGES\nCOVERAGE C – Personal Property\n"
        "Special Limits Of Liability\nItem 3. is replaced by the following:\n"
        "3. $2,500 on property used for business.\n"
    )
    within = (
        "SECTION I – PROPERTY COVERAGES, COVERAGE C – Personal Property, "
        "Special Limits Of Liability"
    )
    assert read_as(text) == [("replace", "3", within)]


def test_a_part_caption_after_the_forms_listed_and_a_line_naming_forms_keep_the_place() -> None:
    text = (
        "This endorsement modifies insurance provided under the following:\n"
        "HOMEOWNERS 3 – SPECIAL FORM\nSECTION I – PERILS INSURED AGAINST\nIn Form HO 00 03:\n"
        "Coverage A – Dwelling And Coverage B – Other Structures\n"
        "Paragraph 2.c.(6)(c) is deleted.\n"
    )
    within = (
        "SECTION I – PERILS INSURED AGAINST, Coverage A – Dwelling And Coverage B – Other "
        "Structures"
    )
    assert read_as(text) == [("delete", "2.c.(6)(c)", within)]


def test_an_opening_naming_a_part_by_its_title_places_the_paragraph_after_it() -> None:
    text = (
        "A. In the Legal Action Against Us Condition, Paragraph 2. is replaced by the "
        "following:\n2. Within 3 years.\n"
        "B. With respect to the Cancellation Common Policy Condition, Paragraph 3. is "
        "deleted.\n"
    )
    assert read_as(text) == [
        ("replace", "2", "Legal Action Against Us Condition"),
        ("delete", "3", "Cancellation Common Policy Condition"),
    ]
