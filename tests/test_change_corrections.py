"""Corrections to an endorsement's changes (policies/index.yaml), applied to the reader's list."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from claims_crew.policy.change_corrections import ChangeCorrection, apply_change_corrections
from claims_crew.policy.changes import Change

READ = [
    Change("replace", "4.2(b)", "(b) sudden discharge …", 1),
    Change("not_apply", "This exclusion", "This exclusion does not apply to …", 1, True),
    Change("add", "7", "7.12 Hot tubs …", 2),
]


def test_no_corrections_keep_the_readers_changes() -> None:
    assert apply_change_corrections(READ, []) == READ


def test_drop_a_change_by_number() -> None:
    fixed = apply_change_corrections(READ, [ChangeCorrection(change=2, drop=True, why="own words")])
    assert fixed == [READ[0], READ[2]]


def test_correct_a_changes_kind_and_target() -> None:
    fixed = apply_change_corrections(
        READ, [ChangeCorrection(change=1, kind="add"), ChangeCorrection(change=3, target="7.12")]
    )
    assert (fixed[0].kind, fixed[0].target, fixed[0].text) == ("add", "4.2(b)", READ[0].text)
    assert (fixed[2].kind, fixed[2].target, fixed[2].text) == ("add", "7.12", READ[2].text)


def test_numbers_are_the_readers_even_after_a_drop() -> None:
    fixed = apply_change_corrections(
        READ, [ChangeCorrection(change=1, drop=True), ChangeCorrection(change=3, target="7")]
    )
    assert [c.target for c in fixed] == ["This exclusion", "7"]


def test_add_a_missed_change_in_page_order() -> None:
    missed = ChangeCorrection(kind="delete", target="8.3", page=1, why="printed as a table")
    fixed = apply_change_corrections(READ, [missed])
    assert fixed == [READ[0], READ[1], Change("delete", "8.3", "", 1), READ[2]]
    with_text = ChangeCorrection(kind="add", target="9", text="9.4 Drones …", page=3)
    assert apply_change_corrections(READ, [with_text])[-1] == Change("add", "9", "9.4 Drones …", 3)


def test_a_number_the_reader_did_not_give_is_an_error() -> None:
    with pytest.raises(ValueError, match="change 4: the reader gave 3 change"):
        apply_change_corrections(READ, [ChangeCorrection(change=4, drop=True)])


@pytest.mark.parametrize(
    ("correction", "words"),
    [
        (ChangeCorrection(kind="add", page=1), "target missing"),
        (ChangeCorrection(target="7", kind="add"), "page missing"),
        (ChangeCorrection(drop=True), "must name it"),
    ],
)
def test_an_added_change_needs_its_kind_target_and_page(
    correction: ChangeCorrection, words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        apply_change_corrections(READ, [correction])


def test_numbers_count_from_one() -> None:
    with pytest.raises(ValidationError):
        ChangeCorrection(change=0, drop=True)
