"""A YAML file's errors each name the file's line and the field, and every error of the file is
listed: a bad date among them, which PyYAML alone turns into a bare "month must be in 1..12"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.policy.issued import IssuedPolicy, load_issued
from claims_crew.settings.yaml_files import model_from_yaml
from tests.support.paths import ROOT, SAMPLE_POLICIES

# An issued policy with three errors, on lines 3, 4 and 7.
BROKEN = """\
number: HM-25-00417
form: HM-HOME-001
holder: [Priya, Raman]
period: {from: 2025-13-01, to: 2025-12-31}
endorsements:
  - {endorsement: HM-E-07, effective: 2025-01-01}
  - {endorsement: HM-E-09, effective: 2025-07-41}
"""
# (line, field, words of pydantic's message)
EXPECTED = (
    (3, "holder", "valid string"),
    (4, "period.from", "month value is outside expected range"),
    (7, "endorsements[1].effective", "day value is outside expected range"),
)


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    folder = tmp_path / "policies"
    shutil.copytree(SAMPLE_POLICIES, folder, ignore=shutil.ignore_patterns("src"))
    (folder / "issued" / "HM-25-00417.yaml").write_text(BROKEN, encoding="utf-8")
    return folder


def test_every_error_names_its_line_and_field(policies: Path) -> None:
    path = policies / "issued" / "HM-25-00417.yaml"
    with pytest.raises(ConfigError) as raised:
        model_from_yaml(path, IssuedPolicy, "issued policy")
    lines = str(raised.value).splitlines()
    assert len(lines) == len(EXPECTED)
    for said, (line, field, words) in zip(lines, EXPECTED, strict=True):
        assert said.startswith(f"{path}:{line}: {field}: "), said
        assert words in said
    assert "month must be in" not in str(raised.value)


def test_loading_the_library_says_the_same(policies: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        load_issued(policies)
    assert [line.split(": ")[1] for line in str(raised.value).splitlines()] == [
        field for _, field, _ in EXPECTED
    ]


def test_a_yaml_syntax_error_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "HM-1.yaml"
    path.write_text("number: HM-1\nform: [HM-HOME-001\nholder: x\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{path}:\d+: not valid YAML: "):
        model_from_yaml(path, IssuedPolicy, "issued policy")


def test_config_check_lists_them_all(policies: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(policies))
    monkeypatch.chdir(policies.parent)
    result = CliRunner().invoke(main, ["config", "check", "--config-dir", str(ROOT / "config")])
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()  # not a terminal: one whole line a problem
    for line, field, words in EXPECTED:
        assert any(
            s.startswith(f"policies/issued/HM-25-00417.yaml:{line}: ") and field in s and words in s
            for s in lines
        ), result.output
