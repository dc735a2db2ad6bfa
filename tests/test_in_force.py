"""The policy as issued on a day (PolicyLibrary.in_force): the sample forms with the sample
endorsements' PDFs read, applied in order, indexed and cached."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from claims_crew.errors import PolicyError, PolicyErrorCode
from claims_crew.policy import library as library_module
from claims_crew.policy.library import PolicyLibrary
from tests.support.paths import SAMPLE_POLICIES

HOME, HOME_NUMBER = "HM-HOME-001", "HM-25-00417"
AUTO, AUTO_NUMBER = "MR-AUTO-001", "MA-25-0193"


@pytest.fixture
def library(tmp_path: Path) -> PolicyLibrary:
    return PolicyLibrary(SAMPLE_POLICIES, tmp_path / "cache")


def test_before_the_mid_term_endorsement_only_the_water_clause_is_amended(
    library: PolicyLibrary,
) -> None:
    doc = library.in_force(HOME, HOME_NUMBER, date(2025, 3, 10))
    water = doc.get("4.2(b)")
    assert water is not None and "less than 10 years old" in water.text
    assert doc.amendments["4.2(b)"].endorsement == "HM-E-07"
    assert doc.amendments["4.2(b)"].kind == "replace"
    assert doc.get("7.12") is None and "8.3" not in doc.amendments
    assert doc.unmatched == []
    assert doc.issued is not None and doc.issued.number == HOME_NUMBER
    assert doc.form is not None
    original = doc.form.get("4.2(b)")
    assert original is not None and "10 years" not in original.text
    assert doc.amendments["4.2(b)"].original == original.text


def test_after_it_the_added_exclusion_and_the_new_emergency_limit_are_in_force(
    library: PolicyLibrary,
) -> None:
    doc = library.in_force(HOME, HOME_NUMBER, date(2025, 8, 10))
    hot_tubs = doc.get("7.12")
    assert hot_tubs is not None and hot_tubs.kind == "exclusion" and hot_tubs.parent == "7"
    added = doc.amendments["7.12"]
    assert (added.endorsement, added.kind, added.pages, added.original) == (
        "HM-E-09",
        "add",
        (1,),
        None,
    )
    assert added.effective == date(2025, 7, 1)
    repairs = doc.get("8.3")
    assert repairs is not None and "£750" in repairs.text and "£500" not in repairs.text
    assert doc.amendments["8.3"].endorsement == "HM-E-09"
    assert "4.2(b)" in doc.amendments  # the earlier endorsement still applies


def test_search_runs_over_the_wording_in_force(library: PolicyLibrary) -> None:
    before = library.in_force(HOME, HOME_NUMBER, date(2025, 3, 10))
    after = library.in_force(HOME, HOME_NUMBER, date(2025, 8, 10))
    assert "7.12" not in [hit.clause.id for hit in before.search("hot tub")]
    assert after.search("hot tub")[0].clause.id == "7.12"


def test_the_mid_term_auto_exclusion_applies_from_its_effective_date(
    library: PolicyLibrary,
) -> None:
    before = library.in_force(AUTO, AUTO_NUMBER, date(2025, 8, 1))
    after = library.in_force(AUTO, AUTO_NUMBER, date(2025, 10, 1))
    assert before.get("Section II.B.8") is None and before.amendments == {}
    assert before.issued is not None and before.issued.declarations == "lindqvist-declarations.yaml"
    ride_sharing = after.get("Section II.B.8")
    assert ride_sharing is not None and ride_sharing.kind == "exclusion"
    assert "transportation network platform" in ride_sharing.text
    assert after.amendments["Section II.B.8"].cited() == "as added by endorsement MA-E-12 (page 1)"


def test_a_warm_open_reads_no_endorsement_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    on = date(2025, 8, 10)
    cold = PolicyLibrary(SAMPLE_POLICIES, cache).in_force(HOME, HOME_NUMBER, on)

    def no_reading(*args: object, **kwargs: object) -> list[str]:
        raise AssertionError("a PDF was read")

    monkeypatch.setattr(library_module, "extract_pages", no_reading)
    monkeypatch.setattr(library_module, "read_text_layer", no_reading)
    warm_library = PolicyLibrary(SAMPLE_POLICIES, cache)
    warm = warm_library.in_force(HOME, HOME_NUMBER, on)
    assert dict(warm.amendments) == dict(cold.amendments)
    assert list(warm.unmatched) == list(cold.unmatched)
    assert [c.id for c in warm.clauses] == [c.id for c in cold.clauses]
    assert warm.index_path == cold.index_path
    # Within one library the same endorsements in force are one wording, opened once.
    assert warm_library.in_force(HOME, HOME_NUMBER, date(2025, 9, 1)) is warm


def _library_with(tmp_path: Path, endorsements: str, issued: str) -> PolicyLibrary:
    root = tmp_path / "policies"
    (root / "issued").mkdir(parents=True)
    form = SAMPLE_POLICIES / "harbour_home.pdf"
    (root / "index.yaml").write_text(
        "policies:\n"
        f"  {HOME}:\n    file: {form}\n    product: Home\n    line: home\n"
        "    in_force_from: 2025-01-01\n"
        f"endorsements:\n{endorsements}",
        encoding="utf-8",
    )
    (root / "issued" / "P-1.yaml").write_text(
        f"number: P-1\nform: {HOME}\nperiod: {{from: 2025-01-01, to: 2025-12-31}}\n"
        f"endorsements:\n{issued}",
        encoding="utf-8",
    )
    return PolicyLibrary(root, tmp_path / "cache")


def _error(library: PolicyLibrary, policy_id: str, number: str) -> PolicyError:
    with pytest.raises(PolicyError) as caught:
        library.in_force(policy_id, number, date(2025, 6, 1))
    return caught.value


@pytest.mark.parametrize(
    ("endorsements", "code", "words"),
    [
        ("  {}\n", "unknown_endorsement", "names endorsement 'E-1'"),
        (
            "  E-1:\n    file: e1.pdf\n    title: One\n    form: MR-AUTO-001\n",
            "wrong_form",
            "endorsement E-1 amends form MR-AUTO-001",
        ),
        ("  E-1:\n    file: e1.pdf\n    title: One\n    form: HM-HOME-001\n", "malformed", "E-1"),
        ("  E-1:\n    file: gone.pdf\n    title: One\n    form: HM-HOME-001\n", "not_found", "E-1"),
    ],
)
def test_an_endorsement_that_cannot_be_applied_is_an_error_naming_it(
    tmp_path: Path, endorsements: str, code: PolicyErrorCode, words: str
) -> None:
    library = _library_with(
        tmp_path, endorsements, "  - {endorsement: E-1, effective: 2025-01-01}\n"
    )
    (library.root / "e1.pdf").write_bytes(b"%PDF-1.4\nnot really a PDF\n")
    error = _error(library, HOME, "P-1")
    assert error.code == code and words in error.message


def test_an_unknown_number_or_a_policy_on_another_form_is_an_error(
    library: PolicyLibrary,
) -> None:
    unknown = _error(library, HOME, "HM-99-00000")
    assert unknown.code == "unknown_policy" and "HM-99-00000" in unknown.message
    assert HOME_NUMBER in unknown.message  # the known numbers are listed
    wrong = _error(library, AUTO, HOME_NUMBER)
    assert wrong.code == "wrong_form"
    assert wrong.message == f"policy {HOME_NUMBER} is issued on form {HOME}, not on {AUTO}"


def test_for_claim_without_a_number_is_the_form(library: PolicyLibrary) -> None:
    assert library.for_claim(HOME, None, date(2025, 8, 10)) is library.open(HOME)
    in_force = library.for_claim(HOME, HOME_NUMBER, date(2025, 8, 10))
    assert in_force.get("7.12") is not None
