"""A change aimed at a label the form prints more than once (target_clauses.py).

The ISO forms print a "SECTION I" for each part (property coverages, exclusions, conditions).
A target "Section I" with no heading beside it names none of them in particular: it reaches
no clause and the change is listed as not applied, as a headed target that fits none is. A
label printed twice where only one has a body (a contents line and the clause) still reaches
the clause."""

from __future__ import annotations

from datetime import date

from claims_crew.policy.amend import EndorsementChanges, amend
from claims_crew.policy.changes import Change
from claims_crew.policy.segment import Clause, segment
from claims_crew.policy.target_clauses import find_target

_FORM = segment(
    [
        "SECTION I \u2013 PROPERTY COVERAGES\nA. Coverage A\nWe cover the dwelling.\n"
        "SECTION I \u2013 EXCLUSIONS\nA. Earth Movement\nWe do not cover earth movement.\n"
    ]
)


def test_several_parts_sharing_a_label_are_never_guessed() -> None:
    assert [c.id for c in _FORM if c.label.startswith("SECTION")] == ["Section I", "Section I~2"]
    assert find_target("Section I", _FORM) is None
    assert find_target("SECTION I", _FORM, within="") is None
    headed = find_target("Section I \u2013 Exclusions", _FORM)  # the heading tells which
    assert headed is not None and headed.id == "Section I~2"


def test_a_change_to_an_ambiguous_part_is_listed_as_not_applied() -> None:
    change = Change("add", "Section I", "B. Mould\nWe do not cover mould.", 1)
    result = amend(_FORM, [EndorsementChanges("E-1", "Mould", date(2025, 1, 1), [change])])
    assert [(u.endorsement, u.number, u.change.target) for u in result.unmatched] == [
        ("E-1", 1, "Section I")
    ]
    assert "mould" not in " ".join(c.text for c in result.clauses)
    assert result.amendments == {}


def test_a_label_printed_twice_with_one_body_still_reaches_it() -> None:
    # A contents line the segmenter kept ("Section 7", one line) and the section itself.
    clauses = [
        Clause("Section 7", "SECTION 7", "EXCLUSIONS", "other", (1,), None, "SECTION 7 EXCLUSIONS"),
        Clause("Section 7~2", "SECTION 7", "EXCLUSIONS", "exclusion", (3,), None, "SECTION 7"),
        Clause("Section 7~2.1", "1.", "Seepage", "exclusion", (3,), "Section 7~2", "1. Seepage"),
    ]
    for target in ("Section 7", "SECTION 7.", "Section 7~2"):
        found = find_target(target, clauses)
        assert found is not None and found.id == "Section 7~2", target


def test_the_first_of_several_namesakes_is_named_with_its_place() -> None:
    first = find_target("Section I~1.A", _FORM)
    assert first is not None and first.title == "Coverage A"
    second = find_target("Section I~2.A", _FORM)
    assert second is not None and second.title == "Earth Movement"
    assert find_target("Section I.A", _FORM) is None  # "A." of which "SECTION I"?
