"""The clause splitter on small texts written to show one numbering style or trap each."""

from __future__ import annotations

from collections import Counter

import pytest

from claims_crew.policy.segment import Clause, segment

DECIMAL = """\
HARBOUR TEST POLICY
4 PERILS WE COVER
4.1 Fire
We cover fire.
4.2 Escape of water
We cover water escaping from a fixed source, namely:
(a) a sudden burst of a pipe;
(b) sudden and accidental discharge of water from a plumbing system;
(c) water escaping from a fish tank.
7 EXCLUSIONS
We do not cover loss or damage caused by:
7.1 Seepage
(a) continuous or repeated seepage or leakage of water over weeks or months;
(b) wear and tear, see
5.4 for the excess that applies.
"""

ISO = """\
DEFINITIONS
A. In this policy, "you" means the named insured.
B. Certain words are defined:
1. "Business" means:
a. A trade; or
b. Any other activity, except:
(1) One or more activities, not described in
(2) through (4) below, for which no pay is received;
(2) Volunteer activities;
2. "Insured" means you.
SECTION I – PROPERTY COVERAGES
A. Coverage A – Dwelling
1. We cover:
a. The dwelling;
b. Materials next to it.
2. We do not cover land.
B. Coverage B – Other Structures
SECTION I – EXCLUSIONS
A. We do not insure for loss caused by any of the following:
1. Ordinance Or Law
2. Earth Movement
"""

HEADED = """\
Section 1 – Medical Expenses
What is covered
• Emergency treatment abroad.
• Repatriation home.
What is not covered
• Treatment that can wait until you return.
• Cosmetic treatment.
Section 2 – Cancellation
What is covered
• Deposits you cannot get back.
General Conditions
1. You must take reasonable care.
2. You must tell us about a claim within 30 days.
"""


def _by_id(text: str) -> dict[str, Clause]:
    return {c.id: c for c in segment([text])}


@pytest.mark.parametrize(
    ("text", "clause_id", "label", "parent", "kind", "first_line"),
    [
        (DECIMAL, "4.2", "4.2", "4", "grant", "4.2 Escape of water"),
        (DECIMAL, "4.2(b)", "(b)", "4.2", "grant", "(b) sudden and accidental discharge"),
        (DECIMAL, "7.1", "7.1", "7", "exclusion", "7.1 Seepage"),
        (DECIMAL, "7.1(a)", "(a)", "7.1", "exclusion", "(a) continuous or repeated seepage"),
        (ISO, "definitions.B.1(b)(1)", "(1)", "definitions.B.1(b)", "definition", "(1) One or"),
        (ISO, "definitions.B.1(b)(2)", "(2)", "definitions.B.1(b)", "definition", "(2) Volunteer"),
        (ISO, "definitions.B.2", "2.", "definitions.B", "definition", '2. "Insured"'),
        (ISO, "Section I.A.1(b)", "b.", "Section I.A.1", "grant", "b. Materials"),
        (ISO, "Section I.A.2", "2.", "Section I.A", "exclusion", "2. We do not cover land."),
        (ISO, "Section I~2.A.2", "2.", "Section I~2.A", "exclusion", "2. Earth Movement"),
        (
            HEADED,
            "Section 1/what-is-not-covered/•2",
            "•",
            "Section 1/what-is-not-covered",
            "exclusion",
            "• Cosmetic treatment.",
        ),
        (
            HEADED,
            "Section 2/what-is-covered/•1",
            "•",
            "Section 2/what-is-covered",
            "grant",
            "• Deposits",
        ),
        (HEADED, "general-conditions.2", "2.", "general-conditions", "condition", "2. You must"),
    ],
)
def test_clause_id_label_parent_and_kind(
    text: str, clause_id: str, label: str, parent: str, kind: str, first_line: str
) -> None:
    clause = _by_id(text)[clause_id]
    assert (clause.label, clause.parent, clause.kind) == (label, parent, kind)
    assert clause.text.startswith(first_line)


def test_cross_reference_at_line_start_stays_in_its_clause() -> None:
    clauses = _by_id(ISO)
    # "(2) through (4) below" continues (1); the real (2) is the next line that starts with "(2)".
    assert "(2) through (4) below" in clauses["definitions.B.1(b)(1)"].text
    assert clauses["definitions.B.1(b)(2)"].text == "(2) Volunteer activities;"


def test_wrapped_decimal_that_breaks_the_sequence_is_not_a_clause() -> None:
    clauses = _by_id(DECIMAL)
    assert "5.4" not in clauses
    assert clauses["7.1(b)"].text.endswith("5.4 for the excess that applies.")


def test_every_line_lands_in_exactly_one_clause() -> None:
    pages = ["Please read this policy carefully.\n" + DECIMAL, ISO, HEADED]
    clauses = segment(pages)
    lines = Counter(ln for page in pages for ln in page.splitlines())
    assert Counter(ln for c in clauses for ln in c.text.splitlines()) == lines
    assert clauses[0].id == "preamble"  # text before the first clause is kept, too
    assert clauses[0].text == "Please read this policy carefully."


def test_pages_follow_the_text() -> None:
    clauses = {c.id: c for c in segment(["4 COVER\n4.1 Fire\nfire is", "covered\n4.2 Water"])}
    assert clauses["4.1"].pages == (1, 2)
    assert clauses["4.2"].pages == (2,)


def test_repeated_labels_get_distinct_ids_in_document_order() -> None:
    ids = [c.id for c in segment([ISO])]
    assert len(ids) == len(set(ids))
    assert ids.index("Section I") < ids.index("Section I~2")


def test_keyword_sentence_is_not_a_heading() -> None:
    text = "Section 1 – Medical\nSome words.\nSection 4 – Cancellation cover shall be\nvoid.\n"
    assert [c.id for c in segment([text])] == ["Section 1"]


def test_roman_numerals_and_letters_are_told_apart() -> None:
    letters = "1.1 Items\n" + "".join(f"({ch}) item {ch};\n" for ch in "abcdefghij")
    romans = "1.1 Items\n(i) one;\n(ii) two;\n(iii) three;\n"
    assert "1.1(i)" in _by_id(letters) and _by_id(letters)["1.1(j)"].parent == "1.1"
    assert [c.id for c in segment([romans])][-1] == "1.1(iii)"


def test_running_header_never_opens_a_clause() -> None:
    pages = [f"ACME POLICY WORDING\n{n}.1 Clause {n}\nText of clause {n}.\n" for n in range(1, 6)]
    clauses = segment(pages)
    assert not any(c.title == "ACME POLICY WORDING" for c in clauses)
    assert [c.id for c in clauses if c.id != "preamble"] == [f"{n}.1" for n in range(1, 6)]


@pytest.mark.parametrize("heading", ["Preamble", "PREAMBLE"])
def test_a_heading_called_preamble_gets_its_own_id(heading: str) -> None:
    text = f"Welcome.\n{heading}\nThis policy is a contract.\nSECTION 1 - COVER\nWe will pay."
    clauses = segment([text])
    ids = [c.id for c in clauses]
    assert ids == ["preamble", "preamble~2", "Section 1"]
    assert clauses[1].title == heading and "a contract" in clauses[1].text
