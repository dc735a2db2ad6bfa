"""The wording in force: a form's clauses with endorsements' changes applied (policy/amend.py).

Pure: the form is segmented from a short text, the changes are written by hand."""

from __future__ import annotations

from datetime import date

import pytest

from claims_crew.policy.amend import Amended, EndorsementChanges, amend
from claims_crew.policy.changes import Change
from claims_crew.policy.segment import Clause, segment
from claims_crew.policy.target_clauses import find_target, target_parts

FORM = """\
# 4 WHAT IS COVERED
4.2 Escape of water
We cover loss or damage caused by water escaping from a fixed source, namely:
(a) a sudden burst of a pipe or tank;
(b) sudden discharge of water from a household appliance;
(c) water escaping from a fixed fish tank.
# 7 EXCLUSIONS
We do not cover loss or damage caused by:
7.1 Gradual seepage
Seepage or leakage of water over a period of weeks.
7.2 Flood
Flood, meaning the rising of any river or the sea.
# 8 CLAIMS
8.3 Emergency repairs
You may arrange emergency repairs up to £500 without asking us first.
""".replace("# ", "")

E07 = Change(
    "replace",
    "Clause 4.2(b)",
    "(b) sudden discharge of water from a household appliance less than 10 years old;",
    1,
)
E09_ADD = Change(
    "add",
    "section 7",
    "7.12 Hot tubs and spa pools\nLoss or damage to a hot tub or spa pool, however caused.",
    1,
)
E09_REPLACE = Change(
    "replace",
    "8.3",
    "8.3 Emergency repairs\nYou may arrange emergency repairs up to £750 if:\n"
    "(a) the repairs prevent further damage;\n(b) you keep the invoice.",
    2,
)


def form() -> list[Clause]:
    return segment([FORM])


def endorsement(
    name: str, *changes: Change, effective: date = date(2025, 1, 1)
) -> EndorsementChanges:
    return EndorsementChanges(name, f"Title of {name}", effective, changes)


def by_id(result: Amended) -> dict[str, Clause]:
    return {c.id: c for c in result.clauses}


def test_a_replaced_sub_clause_keeps_its_id_and_records_the_forms_words() -> None:
    result = amend(form(), [endorsement("HM-E-07", E07)])
    clause = by_id(result)["4.2(b)"]
    assert "less than 10 years old" in clause.text
    assert clause.label == "(b)" and clause.parent == "4.2" and clause.kind == "grant"
    amendment = result.amendments["4.2(b)"]
    assert (amendment.endorsement, amendment.kind, amendment.pages) == ("HM-E-07", "replace", (1,))
    assert amendment.original == "(b) sudden discharge of water from a household appliance;"
    assert amendment.cited() == "as amended by endorsement HM-E-07 (page 1)"
    # Its siblings are the form's, in the form's order.
    ids = [c.id for c in result.clauses]
    assert ids.index("4.2(a)") < ids.index("4.2(b)") < ids.index("4.2(c)")
    assert "4.2(a)" not in result.amendments and result.unmatched == []


def test_an_added_exclusion_takes_its_own_label_and_the_sections_kind() -> None:
    result = amend(form(), [endorsement("HM-E-09", E09_ADD)])
    added = by_id(result)["7.12"]
    assert added.parent == "7" and added.kind == "exclusion"
    assert added.title == "Hot tubs and spa pools" and "however caused" in added.text
    assert result.amendments["7.12"].kind == "add"
    assert result.amendments["7.12"].original is None
    ids = [c.id for c in result.clauses]
    assert ids.index("7.2") < ids.index("7.12") < ids.index("8")  # at the end of section 7


def test_a_replaced_clause_gets_the_new_words_sub_clauses_under_its_id() -> None:
    result = amend(form(), [endorsement("HM-E-09", E09_REPLACE)])
    clauses = by_id(result)
    assert "£750" in clauses["8.3"].text and "£500" not in clauses["8.3"].text
    assert (
        clauses["8.3(a)"].parent == "8.3" and clauses["8.3(b)"].text == "(b) you keep the invoice."
    )
    assert result.amendments["8.3(a)"].endorsement == "HM-E-09"
    assert result.amendments["8.3(a)"].original is None  # the form had no 8.3(a)
    assert "£500" in (result.amendments["8.3"].original or "")


def test_a_replaced_clause_loses_the_forms_sub_clauses() -> None:
    result = amend(
        form(), [endorsement("E", Change("replace", "4.2", "4.2 Escape of water\nNone.", 1))]
    )
    assert not any(c.id.startswith("4.2(") for c in result.clauses)
    assert "(c) water escaping" in (result.amendments["4.2"].original or "")


def test_a_deleted_clause_stays_with_no_words() -> None:
    result = amend(form(), [endorsement("E", Change("delete", "Exclusion 7.1", "", 1))])
    deleted = by_id(result)["7.1"]
    assert deleted.text == "" and deleted.title == "Gradual seepage"
    assert result.amendments["7.1"].kind == "delete"
    assert "Seepage or leakage" in (result.amendments["7.1"].original or "")


def test_not_apply_whole_and_in_part() -> None:
    whole = Change("not_apply", "7.2", "Exclusion 7.2 does not apply.", 1)
    part = Change("not_apply", "7.1", "Exclusion 7.1 does not apply to a swimming pool.", 1, True)
    result = amend(form(), [endorsement("E", whole, part)])
    clauses = by_id(result)
    assert clauses["7.2"].text == "Exclusion 7.2 does not apply."
    assert clauses["7.1"].text.startswith("7.1 Gradual seepage")
    assert clauses["7.1"].text.endswith("does not apply to a swimming pool.")
    assert {result.amendments[i].kind for i in ("7.1", "7.2")} == {"not_apply"}


def test_a_change_to_a_clause_the_form_lacks_is_reported_not_dropped() -> None:
    missing = Change("replace", "9.9", "9.9 Something", 1)
    unnamed = Change("delete", "", "", 1)
    result = amend(form(), [endorsement("HM-E-07", E07, missing, unnamed)])
    assert [(u.endorsement, u.number, u.change.target) for u in result.unmatched] == [
        ("HM-E-07", 2, "9.9"),
        ("HM-E-07", 3, ""),
    ]
    assert "9.9" in result.unmatched[0].why
    assert "4.2(b)" in result.amendments  # the other change still applies


def test_endorsements_apply_in_order_and_the_original_stays_the_forms() -> None:
    first = endorsement("E1", E07)
    second = endorsement("E2", Change("replace", "4.2(b)", "(b) nothing from appliances;", 1))
    result = amend(form(), [first, second])
    assert by_id(result)["4.2(b)"].text == "(b) nothing from appliances;"
    assert result.amendments["4.2(b)"].endorsement == "E2"
    assert result.amendments["4.2(b)"].original == (
        "(b) sudden discharge of water from a household appliance;"
    )


def test_an_unlabelled_addition_gets_an_id_naming_the_change() -> None:
    add = Change("add", "7", "Loss caused by a trampoline.", 1)
    result = amend(form(), [endorsement("HM-E-09", E09_ADD, add)])
    added = by_id(result)["7/HM-E-09~2"]
    assert added.parent == "7" and added.kind == "exclusion"


def test_targets_are_read_from_printed_references() -> None:
    assert target_parts("Section II – Physical Damage Coverage, B. Exclusions") == (
        ["ii", "b"],
        "exclusion",
    )
    assert target_parts("Paragraph B.5. of Section II")[0] == ["ii", "b/5"]
    clauses = form()
    found = find_target("clause 4.2 (b)", clauses)
    assert found is not None and found.id == "4.2(b)"
    assert find_target("Clause 4.9", clauses) is None


@pytest.mark.parametrize(
    "target",
    ["7.*|.*", r"Clause 4\.2", "4.2(b)|7", "7.+", "[7]", "^7$", "7{1}", "4.*", "7.1?", "Flood|.*"],
)
def test_a_target_is_a_label_never_a_pattern(target: str) -> None:
    clauses = form()
    assert find_target(target, clauses) is None
    result = amend(clauses, [endorsement("E", Change("delete", target, "", 1))])
    assert result.clauses == clauses and result.amendments == {}
    [unmatched] = result.unmatched
    assert unmatched.change.target == target
    assert unmatched.why == f"{target!r} is not a clause label; a target is matched as printed"


@pytest.mark.parametrize(
    ("target", "wanted"),
    [
        ("4.2(b)", "4.2(b)"),  # as the tree names it
        ("  CLAUSE 4.2 (B) ", "4.2(b)"),  # case, spaces and the word before a label
        ("Exclusion 7.1.", "7.1"),  # a label's closing full stop
        ("Section 7 – Exclusions", "7"),  # its heading beside it
        ("Flood", "7.2"),  # a clause named by its title alone
    ],
)
def test_a_target_is_compared_after_a_fixed_normalisation(target: str, wanted: str) -> None:
    found = find_target(target, form())
    assert found is not None and found.id == wanted
