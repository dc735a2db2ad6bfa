"""The endorsement reader (policy/changes.py) on page texts: the sample endorsements' plain
phrases, the standard amendatory phrases' variants, and the edge cases of real layouts."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims_crew.policy.change_targets import reduce_reference
from claims_crew.policy.changes import Change, read_changes
from claims_crew.policy.document import LookupMiss
from claims_crew.policy.library import PolicyLibrary, extract_pages
from tests.support.paths import ROOT, SAMPLE_POLICIES
from tests.support.scripts import load_script

OPENING = (
    "HARBOUR MUTUAL INSURANCE SOCIETY\n"
    "THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.\n"
    "This endorsement modifies insurance provided under the following:\n"
    "HARBOUR MUTUAL HOMEOWNERS POLICY (FORM HM-HO-2025)\n"
)
HM_E_07 = (
    OPENING + "ESCAPE OF WATER – APPLIANCES\n"
    "Clause 4.2(b) is replaced by the following:\n"
    "(b) sudden and accidental discharge of water or steam from within a plumbing, heating or\n"
    "air conditioning system, or from a household appliance that was less than 10 years old at\n"
    "the time of the loss;\n"
)
HM_E_09 = (
    OPENING + "HOT TUBS AND SPA POOLS\n"
    "1. The following exclusion is added to section 7:\n"
    "7.12 Hot tubs and spa pools — Loss or damage to a hot tub or spa pool, or caused by water\n"
    "escaping from one, however caused.\n"
    "2. Clause 8.3 is replaced by the following:\n"
    "8.3 Emergency repairs — You may arrange emergency repairs up to £750.\n"
)
MA_E_12 = (
    "THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.\n"
    "RIDE-SHARING EXCLUSION\n"
    "The following exclusion is added to Section II – Physical Damage Coverage, B. Exclusions:\n"
    "8. Ride-Sharing — “Loss” to “your covered auto” while it is logged on to a transportation\n"
    "network platform as a driver, or carrying a passenger for hire.\n"
)


def _pairs(changes: list[Change]) -> list[tuple[str, str]]:
    return [(c.kind, c.target) for c in changes]


def test_sample_water_endorsement_replaces_4_2_b() -> None:
    [change] = read_changes([HM_E_07])
    assert (change.kind, change.target, change.page) == ("replace", "4.2(b)", 1)
    assert change.text.startswith("(b) sudden and accidental discharge")
    assert change.text.endswith("at\nthe time of the loss;")
    assert "ENDORSEMENT" not in change.text


def test_sample_hot_tub_endorsement_adds_to_7_and_replaces_8_3() -> None:
    changes = read_changes([HM_E_09])
    assert _pairs(changes) == [("add", "7"), ("replace", "8.3")]
    assert changes[0].text.startswith("7.12 Hot tubs and spa pools")
    assert changes[0].text.endswith("however caused.")  # the next change's label "2." is not in it
    assert (
        changes[1].text == "8.3 Emergency repairs — You may arrange emergency repairs up to £750."
    )


def test_sample_ride_sharing_endorsement_adds_to_section_ii_b() -> None:
    [change] = read_changes([MA_E_12])
    assert (change.kind, change.target) == ("add", "Section II.B")
    assert change.text.startswith("8. Ride-Sharing")


@pytest.mark.parametrize(
    ("policy_id", "pages", "targets"),
    [
        ("HM-HOME-001", [HM_E_07], {"4.2(b)": "4.2(b)"}),
        ("HM-HOME-001", [HM_E_09], {"7": "7", "8.3": "8.3"}),
        ("MR-AUTO-001", [MA_E_12], {"Section II.B": "Section II.B"}),
    ],
)
def test_sample_targets_resolve_on_the_sample_forms(
    sample_library: PolicyLibrary, policy_id: str, pages: list[str], targets: dict[str, str]
) -> None:
    form = sample_library.open(policy_id)
    for change in read_changes(pages):
        clause = form.lookup(change.target)
        assert not isinstance(clause, LookupMiss), change
        assert clause.id == targets[change.target]


@pytest.mark.parametrize(
    ("printed", "targets", "within"),
    [
        ("Coverage A.2.a.(4), Coverage Extensions, Supplementary Payments", ("A.2.a.(4)",), ""),
        ("Exclusion B.5., Fellow Employee", ("B.5",), ""),
        (
            "Paragraph A.2.b. of the Common Policy Conditions, Cancellation",
            ("A.2.b",),
            "Common Policy Conditions, Cancellation",
        ),
        ("Clause 4.2(b)", ("4.2(b)",), ""),
        ("section 7", ("7",), ""),
        ("Section II – Physical Damage Coverage, B. Exclusions", ("Section II.B",), ""),
        ("c. Paragraph (5) of a. Supplementary Payments", ("a.(5)",), ""),
        (
            "Paragraphs A.4. and A.5. of the Common Policy Conditions",
            ("A.4", "A.5"),
            "Common Policy Conditions",
        ),
        (
            "B.5., Other Insurance of Section IV - Business Auto Conditions",
            ("B.5",),
            "Section IV - Business Auto Conditions",
        ),
        ("Part B", ("Part B",), ""),
        # A capital letter before "Exclusion" and a number is read as the form's own lettered
        # paragraph of exclusions (AU1006 prints "B. Exclusion 6." for B.6); an endorsement that
        # letters its own items that way needs a correction.
        ("B. Exclusion 6., Care, Custody Or Control", ("B.6",), ""),
        ("c. Exclusion B.1., Expected Or Intended Injury", ("B.1",), ""),
        ("the General Conditions", ("General Conditions",), ""),
        ("the Business Auto Coverage Form", ("",), "Business Auto Coverage Form"),
    ],
)
def test_printed_references_reduce_to_what_names_the_clause(
    printed: str, targets: tuple[str, ...], within: str
) -> None:
    reference = reduce_reference(printed)
    assert (reference.targets, reference.within) == (targets, within)


def _pdf_pages(tmp_path: Path, source: str) -> list[str]:
    """The page texts of a real PDF built from `source` by the policies' build script, read by
    the policy library's own reader (so its footers are on every page)."""
    data: bytes = load_script(ROOT / "scripts" / "build_policies.py").build_pdf(source)
    path = tmp_path / "endorsement.pdf"
    path.write_bytes(data)
    return extract_pages(path, data)


def test_pdf_page_with_two_changes_in_one_paragraph(tmp_path: Path) -> None:
    source = (
        "Endorsement TE-01 Test Changes\n"
        "THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.\n"
        "Exclusion 7.3 is deleted. Clause 4.4(c) is replaced by the following: (c) accidental "
        "damage to portable electronics up to £1,500.\n"
    )
    changes = read_changes(_pdf_pages(tmp_path, source))
    assert _pairs(changes) == [("delete", "7.3"), ("replace", "4.4(c)")]
    assert changes[0].text == ""
    words = " ".join(changes[1].text.split())  # the PDF wraps the line
    assert words == "(c) accidental damage to portable electronics up to £1,500."


def test_change_text_runs_onto_the_next_page_without_its_footer(tmp_path: Path) -> None:
    long_text = " ".join(f"Sentence {n} of the new wording." for n in range(1, 400))
    source = (
        "Endorsement TE-02 Long Wording\n"
        "Clause 2.2 is replaced by the following:\n"
        f"2.2 How we settle. {long_text}\n"
        "Clause 8.3 is deleted.\n"
    )
    pages = _pdf_pages(tmp_path, source)
    assert len(pages) >= 2 and "Page 1 of" in pages[0]
    replaced, deleted = read_changes(pages)
    assert (replaced.kind, replaced.target, replaced.page) == ("replace", "2.2", 1)
    assert "Sentence 399 of the new wording." in replaced.text
    assert "Page" not in replaced.text and "Long Wording" not in replaced.text
    assert (deleted.kind, deleted.target, deleted.page) == ("delete", "8.3", len(pages))


def test_deleted_with_nothing_after_it() -> None:
    [change] = read_changes(["Exclusion B.5., Fellow Employee, is deleted."])
    assert change == Change("delete", "B.5", "", 1)


def test_does_not_apply_whole_and_in_part() -> None:
    pages = [
        "1. Part B does not apply.\n"
        "2. Exclusion 3.a. does not apply to the accidental discharge of an airbag.\n"
        "This exclusion does not apply to a vehicle you rent.\n"
    ]
    whole, part = read_changes(pages)
    assert (whole.kind, whole.target, whole.qualified) == ("not_apply", "Part B", False)
    assert (part.kind, part.target, part.qualified) == ("not_apply", "3.a", True)
    # "This exclusion does not apply …" is the endorsement's own wording, not a change.
    assert part.text.startswith("Exclusion 3.a. does not apply to the accidental discharge")
    assert "This exclusion does not apply to a vehicle you rent." in part.text


@pytest.mark.parametrize(
    ("printed", "kind", "target"),
    [
        ("Definition K. is deleted and replaced by the following:", "replace", "K"),
        ("The following replaces Paragraph B.2. Limit Of Insurance:", "replace", "B.2"),
        ("Paragraphs 3. and 4. are deleted in their entirety.", "delete", "3"),
        ("Section 5 is replaced in its entirety by the following:", "replace", "5"),
        ("The following definitions are added to Part F:", "add", "Part F"),
        ("Coverage A.1. is amended by the addition of paragraph h., as follows:", "add", "A.1"),
        ("Exclusion 9. is modified to include the following:", "add", "9"),
        ("Coverage A.3., Glass Breakage, replaced by the following:", "replace", "A.3"),
        ("The following is hereby inserted following item A. of Section II:", "add", "A"),
        ("The following extension is added under item A. Coverage of Section III:", "add", "A"),
        ("Part A is changed by adding the following exclusions:", "add", "Part A"),
        ("Paragraph a. of the Pollution Exclusion applies only to contracts.", "not_apply", "a"),
        (
            "B. Changes In Definitions\nFor the purposes of this endorsement, Paragraph D. of "
            "the Definitions Section is replaced by the following:",
            "replace",
            "D",
        ),
    ],
)
def test_phrase_variants(printed: str, kind: str, target: str) -> None:
    changes = read_changes([f"{printed}\nNew words for the clause.\n"])
    assert (changes[0].kind, changes[0].target) == (kind, target)


def test_changed_as_follows_heads_its_items() -> None:
    pages = [
        "A. Section II - Liability Coverage is changed as follows:\n"
        "1. Paragraph B.3. is deleted.\n"
        "2. The following exclusion is added:\n"
        "9. Racing\nUse in any race.\n"
        "B. Part C is changed as follows:\n"
        "1. No deductible applies to glass.\n"
    ]
    changes = read_changes(pages)
    assert [(c.kind, c.target, c.within) for c in changes] == [
        ("delete", "B.3", "Section II"),
        ("add", "Section II", "Section II"),
        ("add", "Part C", ""),
    ]
    assert changes[1].text == "9. Racing\nUse in any race."
    assert changes[2].text == "1. No deductible applies to glass."


@pytest.mark.parametrize(
    "pages",
    [
        [],
        ["", "  \n"],
        [
            "THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.\n"
            "This endorsement modifies insurance provided under the following:\n"
            "BUSINESS AUTO COVERAGE FORM\n"
            "With respect to coverage provided by this endorsement, the provisions of the "
            "Coverage Form apply unless modified by the endorsement.\n"
            "CA 99 99 01 21 © Insurance Services Office, Inc., 2020 Page 1 of 1\n"
        ],
    ],
    ids=["no pages", "empty pages", "boilerplate only"],
)
def test_no_changes_where_none_are_stated(pages: list[str]) -> None:
    assert read_changes(pages) == []


def test_references_to_the_endorsements_own_words_are_not_changes() -> None:
    pages = [
        "Exclusion B.1. is replaced by the following:\n"
        "a. Injury you intend.\nb. Damage you intend.\n"
        "Paragraphs a. and b. above do not apply to acts to protect persons.\n"
        "This insurance does not apply to racing.\n"
    ]
    [change] = read_changes(pages)
    assert (change.kind, change.target) == ("replace", "B.1")
    assert change.text.endswith("This insurance does not apply to racing.")


SAMPLE_ENDORSEMENTS = [
    ("hm_e07_escape_of_water.pdf", "HM-HOME-001", [("replace", "4.2(b)")]),
    ("hm_e09_hot_tubs.pdf", "HM-HOME-001", [("add", "7"), ("replace", "8.3")]),
    ("ma_e12_ride_sharing.pdf", "MR-AUTO-001", [("add", "Section II.B")]),
]


@pytest.mark.parametrize(("name", "policy_id", "expected"), SAMPLE_ENDORSEMENTS)
def test_sample_endorsement_pdfs(
    sample_library: PolicyLibrary, name: str, policy_id: str, expected: list[tuple[str, str]]
) -> None:
    """The sample endorsements as built (policies/endorsements/), read as the library reads
    them: every change found, no footer in its words, its target a clause of the form."""
    path = SAMPLE_POLICIES / "endorsements" / name
    if not path.exists():
        pytest.skip(f"{path} is not built in this checkout")
    changes = read_changes(extract_pages(path, path.read_bytes()))
    assert _pairs(changes) == expected
    form = sample_library.open(policy_id)
    for change in changes:
        assert "Page 1 of" not in change.text and change.text
        assert not isinstance(form.lookup(change.target), LookupMiss), change
