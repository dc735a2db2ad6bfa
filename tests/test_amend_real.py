"""Real endorsements' targets found in the real form they amend (target_clauses.py, amend.py).

Source: ../shared/policies/glatfelter_business_auto_ca0001_fl_us.pdf (see the README there): the
ISO Business Auto Coverage Form CA 00 01 10 13 (pp. 164-175) and endorsements issued on it. The
clause each change should reach was read by hand from the endorsement and the form; a change
aimed at another form (CA 02 67 amends the Common Policy Conditions, not printed here) must
reach nothing rather than a clause with the same number.
"""

from __future__ import annotations

from datetime import date
from functools import cache

from pypdf import PdfReader

from claims_crew.policy.amend import EndorsementChanges, amend
from claims_crew.policy.changes import read_changes
from claims_crew.policy.segment import Clause, segment
from claims_crew.policy.target_clauses import find_target
from tests.support.paths import shared_pdf

PDF = "glatfelter_business_auto_ca0001_fl_us.pdf"
LIABILITY = "Section II/coverage"

# (endorsement, its pages, the clause of CA 00 01 each change reaches, in the reader's order)
EXPECTED: list[tuple[str, tuple[int, int], list[str | None]]] = [
    (
        "AU1003",
        (152, 154),
        [
            f"{LIABILITY}.A.1",  # Coverage A.1. … addition of paragraphs d., e. and f.
            f"{LIABILITY}.A.1",
            "Section IV.B.5",  # B.5., Other Insurance, of the Conditions
            f"{LIABILITY}.A.1",
            "Section IV.B.5",
            f"{LIABILITY}.A.1",
            f"{LIABILITY}.A.2(a)(4)",  # Coverage A.2.a.(4) is replaced
            f"{LIABILITY}.B.1",
            f"{LIABILITY}.B.4",
            f"{LIABILITY}.B.5",  # Exclusion B.5., Fellow Employee, is deleted
            "Section IV.A.2",  # Paragraph A.2. Duties In The Event Of …
        ],
    ),
    (
        "CA 01 28",
        (220, 222),
        [
            f"{LIABILITY}.A.2(a)(5)",  # a.(5) of Coverage Extensions
            "Section III",  # Physical Damage Coverage is changed
            "Section IV.A.1",  # Paragraph 1. of Loss Conditions, Appraisal …
            "Section IV.B.5",  # the Other Insurance Condition
            "Section IV.B",  # a condition added to the General Conditions
        ],
    ),
    # Amends the Common Policy Conditions (another form): nothing here is its target. Its fifth
    # change, "The following condition is added:" under no part, named no clause and reached
    # nothing; since reading version 4 it is not read at all.
    ("CA 02 67", (223, 224), [None, None, None, None]),
]


@cache
def _pages(first: int, last: int) -> tuple[str, ...]:
    reader = PdfReader(shared_pdf(PDF))
    return tuple(reader.pages[i - 1].extract_text() for i in range(first, last + 1))


@cache
def _form() -> tuple[Clause, ...]:
    return tuple(segment(_pages(164, 175)))


def test_real_targets_reach_the_clauses_read_by_hand() -> None:
    form = _form()
    for name, (first, last), expected in EXPECTED:
        changes = read_changes(_pages(first, last))
        reached = [
            found.id if (found := find_target(c.target, form, c.within)) else None for c in changes
        ]
        assert reached == expected, name


def test_real_endorsement_applied_to_the_real_form() -> None:
    form = list(_form())
    changes = read_changes(_pages(152, 154))
    result = amend(form, [EndorsementChanges("AU1003", "Extension", date(2025, 1, 1), changes)])
    assert result.unmatched == []
    fellow = next(c for c in result.clauses if c.id == f"{LIABILITY}.B.5")
    assert fellow.text == "" and result.amendments[fellow.id].kind == "delete"
    assert "Fellow Employee" in (result.amendments[fellow.id].original or "")
    replaced = result.amendments[f"{LIABILITY}.A.2(a)(4)"]
    assert replaced.kind == "replace" and replaced.original
    added = [cid for cid, a in result.amendments.items() if a.kind == "add"]
    # The paragraphs added take their own letters, written as the segmenter writes them.
    assert {f"{LIABILITY}.A.1(d)", f"{LIABILITY}.A.1(i)", "Section IV.B.5(e)"} <= set(added)
