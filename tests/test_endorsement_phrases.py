"""The endorsement reader on how endorsements are drafted, a phrase family each: where a
reference sits, lists of numbers, captions and "X is amended." before "The following … is
added", "does not apply" inside added words, an exclusion for every coverage part, and the
parts of a clause told by their place, which are left unread rather than guessed."""

from __future__ import annotations

from claims_crew.policy.changes import Change, read_changes
from claims_crew.policy.segment import segment
from claims_crew.policy.target_clauses import find_target, target_parts
from tests.support.changes_read import read_as


def _pairs(changes: list[Change]) -> list[tuple[str, str]]:
    return [(c.kind, c.target) for c in changes]


def test_a_provision_a_paragraph_sits_in_is_kept() -> None:
    text = (
        "Paragraph B. of the Duplicate Payments Provision is replaced by the following:\n"
        "B. No one will be entitled to duplicate payments.\n"
        "Paragraph 2. of the Insuring Agreement is deleted.\n"
    )
    assert read_as(text) == [
        ("replace", "B", "Duplicate Payments Provision"),
        ("delete", "2", "Insuring Agreement"),
    ]


def test_a_place_named_with_of_keeps_all_its_words() -> None:
    text = (
        "1. Paragraph A.5.i.(5). of the Increased Cost of\nConstruction Additional Coverage "
        "is replaced\nby the following:\n(5) We will not pay for mould.\n"
    )
    [(kind, target, within)] = read_as(text)
    assert (kind, target) == ("replace", "A.5.i.(5)")
    assert within.startswith("Increased Cost of Construction")


def test_aais_under_placement_names_the_last_part() -> None:
    text = (
        "1. Under Definitions, the definition of \u201cactual cash value\u201d is deleted and "
        "replaced by the following:\n\u201cActual Cash Value\u201d means the cost to repair.\n"
        "2. Under Property Coverages, Incidental Property Coverages, Trees, Plants, Shrubs, Or "
        "Lawns, is amended to include the following:\nWe do not cover trees far from home.\n"
        "3. Under Property Coverages, Principal Property Coverages, Coverage B -- Related "
        "Private Structures, is amended to include the following under item c.:\n"
        "6) barns used for farming.\n"
    )
    assert read_as(text) == [
        ("replace", "actual cash value", "Definitions"),
        (
            "add",
            "Trees, Plants, Shrubs, Or Lawns",
            "Property Coverages, Incidental Property Coverages",
        ),
        (
            "add",
            "c",
            "Property Coverages, Principal Property Coverages, Coverage B -- Related Private "
            "Structures",
        ),
    ]


def test_a_part_told_by_its_place_is_not_read() -> None:
    text = (
        "1. Under Property Coverages, Incidental Property Coverages, Fire Department Service "
        "Charge, the second paragraph is deleted.\n"
        "2. Exclusion 4. is deleted.\n"
    )
    assert _pairs(read_changes([text])) == [("delete", "4")]


def test_lists_of_numbers_are_expanded() -> None:
    text = "Exclusions 6., 14., 15. and 16. do not apply.\n"
    assert _pairs(read_changes([text])) == [
        ("not_apply", "6"),
        ("not_apply", "14"),
        ("not_apply", "15"),
        ("not_apply", "16"),
    ]
    london = (
        "It is further agreed and understood that for the machinery undergoing a test,\n"
        "exclusions c and d of the Exclusions to Section 1 of the Policy shall be deleted and "
        'the following exclusion shall apply:\n"loss due to faulty design"\n'
    )
    assert read_as(london) == [
        ("delete", "c", "Exclusions to Section 1 of the Policy"),
        ("delete", "d", "Exclusions to Section 1 of the Policy"),
        ("add", "Exclusions to Section 1", ""),
    ]


def test_an_amended_heading_then_the_following_is_added() -> None:
    same_line = (
        "Section II B. Exclusions is amended. The following exclusion is added:\n"
        "9. Racing. We will not pay for loss in a race.\n"
    )
    assert _pairs(read_changes([same_line])) == [("add", "Section II.B")]
    captions = (
        "A. Section I \u2013 Property Coverages\nThe following is added:\n"
        "1. We insure for loss caused by earthquake.\n"
        "B. Section I \u2013 Exclusions\n1. The following exclusions are added:\n"
        "a. Exterior Masonry Veneer\nWe do not cover loss to veneer.\n"
    )
    changes = read_changes([captions])
    assert _pairs(changes) == [
        ("add", "Section I \u2013 Property Coverages"),
        ("add", "Section I \u2013 Exclusions"),
    ]
    assert changes[0].text.endswith("earthquake.")  # the next caption is not in its words
    in_capitals = "DEFINITIONS The following definitions are added: 9. Hurricane means a storm."
    assert _pairs(read_changes([in_capitals])) == [("add", "DEFINITIONS")]


def test_a_title_in_capitals_is_not_taken_for_a_part() -> None:
    # The title names no part of the form, so the addition names no clause, and a change that
    # names none is not read (reading version 4): it could reach nothing.
    text = "HOT TUBS AND SPA POOLS\nThe following exclusion is added:\nLoss to a hot tub.\n"
    assert read_changes([text]) == []


def test_a_heading_runs_over_its_own_lettered_items() -> None:
    text = (
        "I. DEFINITIONS\nThe Definitions Section is amended as follows:\n"
        "A. The definition of Your covered auto is replaced by the following:\n"
        '"Your covered auto" means any vehicle shown in the Declarations.\n'
        "B. The following definition of Newly acquired auto is added:\n"
        '"Newly acquired auto" means a vehicle you become the owner of.\n'
    )
    assert read_as(text) == [
        ("replace", "Your covered auto", "Definitions Section"),
        ("add", "Definitions Section", "Definitions Section"),
    ]


def test_does_not_apply_inside_added_words_is_those_words() -> None:
    text = (
        "1. The following exclusion is added to Section II:\n"
        "C. We will not pay for loss caused by an insured's abuse.\n"
        "The exclusion in Paragraph A. does not apply to an insured who did not take part.\n"
        "2. Exclusion B.4. does not apply.\n"
    )
    changes = read_changes([text])
    assert _pairs(changes) == [("add", "Section II"), ("not_apply", "B.4")]
    assert "does not apply to an insured who did not take part" in changes[0].text


def test_an_exclusion_for_all_forms_is_added_to_every_parts_exclusions() -> None:
    text = (
        "A. The exclusion set forth in Paragraph B. applies to all coverage under all forms and "
        "endorsements that comprise this Coverage Part or Policy.\n"
        "B. We will not pay for loss or damage caused by or resulting from any virus.\n"
    )
    [change] = read_changes([text])
    assert (change.kind, change.target, change.within) == (
        "add",
        "Exclusions",
        "all forms and endorsements",
    )
    assert change.text.startswith("B. We will not pay for loss or damage caused by")


def test_the_policy_named_from_within_is_not_the_endorsements_own_words() -> None:
    text = (
        "I. Section I., INSURING AGREEMENTS, of this Policy is hereby amended by addition of "
        "the following:\nSUPPLEMENTAL COVERAGE\nClaims arising from covered operations.\n"
    )
    assert _pairs(read_changes([text])) == [("add", "Section I")]


def test_target_words_are_whole_words() -> None:
    assert target_parts("Exclusions 6.") == (["6"], "exclusion")
    assert target_parts("Theft")[0] == ["theft"]


def test_a_part_named_with_its_heading_is_told_apart_from_its_namesakes() -> None:
    clauses = segment(
        [
            "SECTION I \u2013 PROPERTY COVERAGES\nA. Coverage A\nWe cover the dwelling.\n"
            "SECTION I \u2013 EXCLUSIONS\nA. Earth Movement\nWe do not cover earth movement.\n"
        ]
    )
    found = find_target("Section I \u2013 Exclusions", clauses)
    assert found is not None and found.title == "EXCLUSIONS"
    assert find_target("Section I \u2013 Conditions", clauses) is None  # never guessed
