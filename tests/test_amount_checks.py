"""`config check` on schedules and on the reason-code mapping: each problem on its line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.config_check import check_config
from claims_crew.records.resolution import Resolution
from claims_crew.resolver.external_codes import load_external_codes
from tests.support.paths import ROOT, SAMPLE_POLICIES


def project(tmp_path: Path) -> tuple[Path, Path]:
    config, policies = tmp_path / "config", tmp_path / "policies"
    shutil.copytree(ROOT / "config", config)
    shutil.copytree(SAMPLE_POLICIES, policies, ignore=shutil.ignore_patterns("src"))
    return config, policies


def problems(config: Path, policies: Path, name: str) -> list[dict[str, Any]]:
    return [p.as_json() for p in check_config(config, policies) if p.file.endswith(name)]


def line_of(path: Path, problem: dict[str, Any]) -> str:
    return path.read_text(encoding="utf-8").splitlines()[problem["line"] - 1]


def test_the_sample_schedules_and_mapping_pass(tmp_path: Path) -> None:
    config, policies = project(tmp_path)
    assert [p.as_json() for p in check_config(config, policies)] == []


def test_a_schedule_naming_a_missing_clause_is_an_error_on_its_line(tmp_path: Path) -> None:
    config, policies = project(tmp_path)
    index = policies / "index.yaml"
    text = index.read_text(encoding="utf-8")
    text = text.replace('clause: "9.2", section: "4.2"', 'clause: "9.7", section: "4.2"')
    text = text.replace('amount: 1000, clause: "5.4"', 'amount: 1000, clause: "4.5(d)"')
    index.write_text(text, encoding="utf-8")
    found = problems(config, policies, "index.yaml")
    assert [(p["code"], p["severity"]) for p in found] == [
        ("schedule_clause_missing", "error"),
        ("schedule_kind_mismatch", "error"),
        ("schedule_figure_not_printed", "warning"),
    ]
    assert found[0]["key"] == "policies.HM-HOME-001.schedule.items[1].clause"
    assert "HM-HOME-001 has no clause '9.7'" in found[0]["message"]
    assert '"9.7"' in line_of(index, found[0])
    assert (
        "4.5(d) is a grant clause; a deductible comes from a limit clause" in (found[1]["message"])
    )
    assert '"4.5(d)"' in line_of(index, found[1]) and found[2]["line"] == found[1]["line"]


def test_a_policyholders_schedule_file_is_checked_too(tmp_path: Path) -> None:
    config, policies = project(tmp_path)
    declarations = policies / "schedules" / "lindqvist-declarations.yaml"
    text = declarations.read_text(encoding="utf-8")
    declarations.write_text(text.replace('"Section II.D.2"', '"Section II.D.9"'), "utf-8")
    [found] = problems(config, policies, "lindqvist-declarations.yaml")
    assert found["code"] == "schedule_clause_missing" and found["key"] == "items[2].clause"
    assert "Section II.D.9" in line_of(declarations, found)


def test_a_mapping_with_a_gap_is_an_error_on_its_section_line(tmp_path: Path) -> None:
    config, policies = project(tmp_path)
    mapping = config / "reason_codes.yaml"
    kept = [
        line
        for line in mapping.read_text(encoding="utf-8").splitlines()
        if not line.startswith("  over_authority:") and "a person asks for more" not in line
    ]
    mapping.write_text("\n".join(kept) + "\n  over_authorty: R50\n", encoding="utf-8")
    found = problems(config, policies, "reason_codes.yaml")
    assert [(p["code"], p["message"]) for p in found] == [
        ("reason_code_unmapped", "decisions: no external code for needs_more_evidence"),
        ("reason_code_unmapped", "reason_codes: no external code for over_authority"),
        ("reason_code_unknown", "over_authorty is not one of claims-crew's reason codes"),
    ]
    assert line_of(mapping, found[0]) == "decisions:"
    assert line_of(mapping, found[1]) == "reason_codes:"
    assert found[2]["hint"] == "did you mean 'over_authority'?"


def test_the_cli_exits_2_on_a_mapping_gap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, policies = project(tmp_path)
    mapping = config / "reason_codes.yaml"
    text = mapping.read_text(encoding="utf-8").replace("  covered: C01", "  # covered: C01")
    mapping.write_text(text, encoding="utf-8")
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(policies))
    result = CliRunner().invoke(main, ["config", "check", "--config-dir", str(config), "--json"])
    assert result.exit_code == 2, result.output
    codes = [p["code"] for p in json.loads(result.output)["problems"]]
    assert codes == ["reason_code_unmapped"]


def test_the_default_mapping_codes_a_denial_by_what_it_rests_on() -> None:
    codes = load_external_codes(ROOT / "config")
    assert codes is not None
    denial = Resolution.model_validate(
        {
            "outcome": "ACCEPTED",
            "rule": "agree",
            "answer": "not_covered",
            "reason": "flood",
            "sides": {
                "policy": {
                    "side": "policy",
                    "parsed": True,
                    "clauses": [
                        {"cited": "7.2", "clause_id": "7.2", "kind": "exclusion",
                         "status": "verified", "supports_answer": True, "tool_sourced": True}
                    ],
                }
            },
        }
    )  # fmt: skip
    assert codes.of_resolution(denial) == "D10"
    held = Resolution(
        outcome="ESCALATED", rule="gates", reason="big", reason_codes=["over_authority"]
    )
    assert codes.of_resolution(held) == "R50"
    assert codes.for_answer("covered") == "C01"
