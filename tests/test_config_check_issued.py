"""`config check` on policies as issued: what an issued policy names must exist and fit it, and
every endorsement change must reach a clause of its form."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from claims_crew.config_check import check_config
from claims_crew.policy.library import PolicyLibrary
from tests.support.paths import ROOT, SAMPLE_POLICIES
from tests.support.scripts import load_script

MISSING_TARGET = """Endorsement HM-E-99 – Garden rooms
Endorsement HM-E-99 (edition 01/2025) to the Harbour Mutual Homeowners Policy, form HM-HO-2025.
This endorsement changes the policy. Please read it carefully.

Clause 4.2(b) is replaced by the following:
(b) sudden and accidental discharge of water from a plumbing system;

Clause 9.9 is replaced by the following:
9.9 Garden rooms
We cover garden rooms up to £10,000.
"""


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "policies"
    shutil.copytree(SAMPLE_POLICIES, folder, ignore=shutil.ignore_patterns("src"))
    return folder


def _problems(folder: Path, unconfirmed: bool = False) -> list[dict[str, Any]]:
    """The policies' problems; an endorsement added here is unconfirmed, which is left out
    unless `unconfirmed`."""
    problems = check_config(ROOT / "config", folder)
    return [
        p.as_json()
        for p in problems
        if p.file.startswith("policies/") and (unconfirmed or p.code != "endorsement_unconfirmed")
    ]


def _write_issued(folder: Path, number: str, body: str) -> Path:
    path = folder / "issued" / f"{number}.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def _line(path: Path, number: int) -> str:
    return path.read_text(encoding="utf-8").splitlines()[number - 1]


def test_the_shipped_policies_as_issued_pass(tmp_path: Path) -> None:
    assert _problems(_folder(tmp_path), unconfirmed=True) == []


def _with_endorsement(folder: Path, corrections: list[dict[str, Any]] | None = None) -> Path:
    """HM-E-99 (one change with a target the home form lacks) listed in index.yaml."""
    build = load_script(ROOT / "scripts" / "build_policies.py").build_pdf
    (folder / "endorsements" / "hm_e99.pdf").write_bytes(build(MISSING_TARGET))
    index_file = folder / "index.yaml"
    index = yaml.safe_load(index_file.read_text(encoding="utf-8"))
    entry = {"file": "endorsements/hm_e99.pdf", "title": "Garden rooms", "form": "HM-HOME-001"}
    index["endorsements"]["HM-E-99"] = {
        **entry,
        **({"corrections": corrections} if corrections else {}),
    }
    index_file.write_text(yaml.safe_dump(index, allow_unicode=True), encoding="utf-8")
    return index_file


def test_a_change_whose_target_the_form_lacks_is_one_line_naming_it(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    index_file = _with_endorsement(folder)
    [problem] = _problems(folder)
    assert problem["code"] == "endorsement_target_missing" and problem["severity"] == "error"
    assert problem["message"] == (
        "HM-E-99 change 2 (replace '9.9', page 1): form HM-HOME-001 has no such clause"
    )
    assert problem["key"] == "endorsements.HM-E-99"
    assert "HM-E-99" in _line(index_file, problem["line"])
    assert "policy tree HM-HOME-001" in problem["hint"]


def test_a_correction_fixes_the_target_and_a_bad_one_is_reported(tmp_path: Path) -> None:
    fixed = _folder(tmp_path / "fixed")
    _with_endorsement(fixed, [{"change": 2, "target": "8.3", "why": "printed as 9.9 in error"}])
    assert _problems(fixed) == []
    bad = _folder(tmp_path / "bad")
    index_file = _with_endorsement(bad, [{"change": 7, "drop": True}])
    [problem] = _problems(bad)
    assert problem["code"] == "endorsement_correction_invalid"
    assert problem["key"] == "endorsements.HM-E-99.corrections"
    assert "corrections" in _line(index_file, problem["line"])
    assert "HM-E-99" in problem["message"] and "7" in problem["message"]


def test_an_issued_policy_naming_what_does_not_exist_is_reported_on_its_lines(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path)
    path = _write_issued(
        folder,
        "X-1",
        "number: X-1\nform: HM-HOME-009\nperiod: {from: 2025-01-01, to: 2025-12-31}\n"
        "declarations: nobody.yaml\n"
        "endorsements:\n  - {endorsement: HM-E-77, effective: 2025-02-01}\n",
    )
    found = {p["code"]: p for p in _problems(folder)}
    assert set(found) == {
        "issued_form_unknown",
        "issued_declarations_unknown",
        "issued_endorsement_unknown",
    }
    assert "HM-HOME-009" in _line(path, found["issued_form_unknown"]["line"])
    assert "nobody.yaml" in _line(path, found["issued_declarations_unknown"]["line"])
    assert "HM-E-77" in _line(path, found["issued_endorsement_unknown"]["line"])
    assert "HM-HOME-001" in found["issued_form_unknown"]["hint"]  # the known forms
    assert found["issued_endorsement_unknown"]["file"] == "policies/issued/X-1.yaml"


def test_an_endorsement_for_another_form_or_outside_the_period_is_an_error(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path)
    path = _write_issued(
        folder,
        "X-2",
        "number: X-2\nform: MR-AUTO-001\nperiod: {from: 2025-03-01, to: 2026-02-28}\n"
        "endorsements:\n"
        "  - {endorsement: HM-E-07, effective: 2025-03-01}\n"
        "  - {endorsement: MA-E-12, effective: 2026-09-01}\n",
    )
    found = {p["code"]: p for p in _problems(folder)}
    assert set(found) == {"endorsement_wrong_form", "endorsement_outside_period"}
    assert found["endorsement_wrong_form"]["message"] == (
        "endorsement HM-E-07 amends form HM-HOME-001, but policy X-2 is on form MR-AUTO-001"
    )
    assert "HM-E-07" in _line(path, found["endorsement_wrong_form"]["line"])
    outside = found["endorsement_outside_period"]
    assert "2026-09-01" in outside["message"] and "2026-09-01" in _line(path, outside["line"])


def test_a_malformed_or_misnamed_issued_file_is_reported(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    _write_issued(folder, "X-3", "number: X-4\nform: HM-HOME-001\n")
    _write_issued(
        folder,
        "X-5",
        "number: X-6\nform: HM-HOME-001\nperiod: {from: 2025-01-01, to: 2025-12-31}\n",
    )
    found = sorted((p["file"], p["code"]) for p in _problems(folder))
    assert found == [
        ("policies/issued/X-3.yaml", "bad_issued_policy"),
        ("policies/issued/X-5.yaml", "issued_number_mismatch"),
    ]


def test_before_a_run_the_references_are_checked_but_no_pdf_is_read(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    _with_endorsement(folder)  # a change the form lacks: found only by reading its PDF
    _write_issued(
        folder,
        "X-7",
        "number: X-7\nform: HM-HOME-009\nperiod: {from: 2025-01-01, to: 2025-12-31}\n",
    )
    problems = check_config(ROOT / "config", folder, schedules=False)
    assert [p.code for p in problems if p.file.startswith("policies/")] == ["issued_form_unknown"]


@pytest.mark.slow  # config check reads the endorsements' PDFs
def test_a_corrected_target_is_a_label_never_a_pattern(tmp_path: Path) -> None:
    """A correction's target is compared as a label: "7.*|.*" reaches no clause, where the
    forgiving keys cut it to "7" and the change deleted all of section 7."""
    folder = _folder(tmp_path)
    index_file = folder / "index.yaml"
    index = yaml.safe_load(index_file.read_text(encoding="utf-8"))
    index["endorsements"]["HM-E-09"]["corrections"] = [
        {"change": 1, "kind": "delete", "target": "7.*|.*"}
    ]
    index_file.write_text(yaml.safe_dump(index, allow_unicode=True), encoding="utf-8")
    [problem] = _problems(folder)
    assert problem["code"] == "endorsement_target_missing"
    assert problem["message"] == (
        "HM-E-09 change 1 (delete '7.*|.*', page 1): form HM-HOME-001 has no such clause"
    )
    assert "HM-E-09" in _line(index_file, problem["line"])
    assert "never a pattern" in problem["hint"]
    library = PolicyLibrary(folder, tmp_path / "cache")
    doc = library.in_force("HM-HOME-001", "HM-25-00417", date(2025, 8, 10))
    seepage = doc.get("7.1")
    assert seepage is not None and "seepage" in seepage.text.lower()
    assert "7" not in doc.amendments and "7.1" not in doc.amendments
    assert [(u.endorsement, u.number) for u in doc.unmatched] == [("HM-E-09", 1)]


def test_an_endorsement_whose_reading_no_lead_confirmed_is_listed(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "confirmations.yaml").unlink()
    problems = [p for p in _problems(folder, True) if p["code"] == "endorsement_unconfirmed"]
    assert [(p["key"], p["severity"]) for p in problems] == [
        (f"endorsements.{name}", "warning") for name in ("HM-E-07", "HM-E-09", "MA-E-12")
    ]
    for p in problems:
        name = p["key"].split(".", 1)[1]
        assert _line(folder / "index.yaml", p["line"]).strip() == f"{name}:"
        assert f"policy confirm {name}" in p["hint"]
