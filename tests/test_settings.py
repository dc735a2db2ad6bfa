"""Every setting declared once: a bad value of each kind is one error naming its variable; the
settings file sits under the environment; `config show` lists what is in effect, secrets
masked; the docs' settings page is the declarations' own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.errors import ConfigError
from claims_crew.settings import Limits, current, effective
from claims_crew.settings.declarations import Declared
from tests.support.paths import ROOT
from tests.support.scripts import load_script

SECRET = "sk-this-must-never-be-shown-0123456789"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CLAIMS_CREW_MODEL_TIMEOUT", "soon"),  # seconds above 0
        ("CLAIMS_CREW_PDF_TIMEOUT", "0"),
        ("CLAIMS_CREW_DATABASE_WAIT", "-1"),  # seconds, 0 or more
        ("CLAIMS_CREW_CLAIM_DEADLINE", "inf"),  # seconds, 0 for none
        ("CLAIMS_CREW_WORKERS", "0"),  # a whole number in a range
        ("CLAIMS_CREW_CONCURRENCY", "many"),
        ("CLAIMS_CREW_LOCAL_THREADS", "1.5"),
        ("CLAIMS_CREW_INTAKE_IMAGES", "maybe"),  # on or off
        ("CLAIMS_CREW_NOW", "yesterday"),  # a moment
    ],
)
def test_a_bad_value_of_each_kind_names_its_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=f"^{name}='{value}': expected "):
        current()
    result = CliRunner().invoke(main, ["config", "show"])
    assert result.exit_code == 2  # refused as a bad config is, before the command
    assert f"{name}='{value}'" in result.stderr


def test_a_bad_value_is_said_whole_without_a_home_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its message is redacted before it is printed, which looks for the audit key file in the
    home folder: that must not fail on the same bad value."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLAIMS_CREW_HOME")
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "x")
    for command, status in (["config", "show"], 2), (["work", "--until-empty"], 1):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == status
        assert result.stderr == (
            "error: CLAIMS_CREW_MAX_RPM='x': expected a whole number from 0 to 1000000\n"
        )


def test_a_changed_environment_is_seen_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_CREW_MODEL_TIMEOUT", "5")
    assert Limits.from_environment().call_timeout_s == 5
    monkeypatch.setenv("CLAIMS_CREW_MODEL_TIMEOUT", "6")
    assert Limits.from_environment().call_timeout_s == 6


def test_the_settings_file_is_under_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("CLAIMS_CREW_MAX_RPM", "MODEL", "CLAIMS_CREW_MODEL_RETRIES"):
        monkeypatch.delenv(name, raising=False)
    toml = tmp_path / "claims-crew.toml"
    toml.write_text('CLAIMS_CREW_MAX_RPM = 100\nmodel = "openai/gpt-4o-mini"\n')
    found = effective()
    assert found.values.claims_crew_max_rpm == 100
    assert found.sources["CLAIMS_CREW_MAX_RPM"] == str(toml)
    assert found.sources["CLAIMS_CREW_MODEL_RETRIES"] == "default"
    assert Limits.from_environment().claim_deadline_s == 600  # MODEL from the file: remote
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "7")
    found = effective()
    assert found.values.claims_crew_max_rpm == 7
    assert found.sources["CLAIMS_CREW_MAX_RPM"] == "environment"


def test_the_acting_reviewer_may_come_from_the_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--reviewer's default is the setting, not only the environment's variable."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLAIMS_CREW_REVIEWER", raising=False)
    refused = CliRunner().invoke(main, ["review", "list", "--mine", "--json"])
    assert refused.exit_code == 2 and "--mine needs --reviewer" in refused.stderr
    (tmp_path / "claims-crew.toml").write_text('CLAIMS_CREW_REVIEWER = "dana"\n')
    listed = CliRunner().invoke(main, ["review", "list", "--mine", "--json"])
    assert listed.exit_code == 0, listed.stderr
    assert json.loads(listed.stdout)["escalations"] == []


def test_a_pyproject_table_is_a_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLAIMS_CREW_WORKERS", raising=False)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n\n[tool.claims-crew]\nCLAIMS_CREW_WORKERS = 3\n')
    found = effective()
    assert found.values.claims_crew_workers == 3
    assert found.sources["CLAIMS_CREW_WORKERS"] == f"{pyproject} [tool.claims-crew]"
    (tmp_path / "claims-crew.toml").write_text("CLAIMS_CREW_WORKERS = 2\n")
    with pytest.raises(ConfigError, match="keep them in one"):
        current()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("CLAIMS_CREW_WORKERS = 0\n", "CLAIMS_CREW_WORKERS=0 (in {file}): expected a whole number"),
        ("CLAIMS_CREW_WORKRS = 2\n", "{file}: 'claims_crew_workrs' is not a claims-crew setting"),
        ("CLAIMS_CREW_WORKERS = \n", "{file}: "),  # not TOML
    ],
)
def test_a_bad_settings_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLAIMS_CREW_WORKERS", raising=False)
    toml = tmp_path / "claims-crew.toml"
    toml.write_text(text)
    with pytest.raises(ConfigError) as raised:
        current()
    assert str(raised.value).startswith(said.format(file=toml))


def test_config_show_lists_each_setting_and_its_source_secrets_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims-crew.toml").write_text("CLAIMS_CREW_MAX_RPM = 100\n")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("CLAIMS_CREW_REVIEWER_TOKEN", SECRET)
    monkeypatch.setenv("CLAIMS_CREW_AUDIT_KEY", SECRET)
    monkeypatch.setenv("CLAIMS_CREW_DATABASE_URL", f"postgresql+psycopg://claims:{SECRET}@db/c")
    monkeypatch.setenv("CLAIMS_CREW_MODEL_TIMEOUT", "30")
    monkeypatch.delenv("CLAIMS_CREW_MAX_RPM", raising=False)
    monkeypatch.delenv("CLAIMS_CREW_MAX_TPM", raising=False)
    result = CliRunner().invoke(main, ["config", "show"])
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    lines = result.output.splitlines()
    assert len(lines) == len(Declared.model_fields)
    assert "CLAIMS_CREW_MODEL_TIMEOUT=30  # environment" in lines
    assert f"CLAIMS_CREW_MAX_RPM=100  # {tmp_path / 'claims-crew.toml'}" in lines
    assert "CLAIMS_CREW_MAX_TPM=0  # default" in lines
    assert "OPENAI_API_KEY=****  # environment" in lines
    assert "CLAIMS_CREW_REVIEWER_TOKEN=****  # environment" in lines
    assert "CLAIMS_CREW_DATABASE_URL=postgresql+psycopg://claims:****@db/c  # environment" in lines

    shown = CliRunner().invoke(main, ["config", "show", "--json"])
    assert shown.exit_code == 0 and SECRET not in shown.output
    rows = {row["name"]: row for row in json.loads(shown.output)["settings"]}
    assert rows["CLAIMS_CREW_AUDIT_KEY"] == {
        "name": "CLAIMS_CREW_AUDIT_KEY",
        "value": "****",
        "source": "environment",
        "group": "Store",
        "secret": True,
    }
    assert rows["CLAIMS_CREW_MAX_RPM"]["value"] == "100"


def test_the_settings_page_is_the_declarations() -> None:
    """Run `uv run python scripts/settings_reference.py > docs/settings.md` when this fails."""
    generated = load_script(ROOT / "scripts" / "settings_reference.py").reference()
    assert (ROOT / "docs" / "settings.md").read_text(encoding="utf-8") == generated
    for field in Declared.model_fields:
        assert f"| `{field.upper()}` |" in generated


def test_config_show_names_the_folder_in_use_where_a_default_is_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLAIMS_CREW_HOME")
    monkeypatch.delenv("CLAIMS_CREW_CONFIG", raising=False)
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(tmp_path / "mine"))
    lines = CliRunner().invoke(main, ["config", "show"]).stdout.splitlines()
    assert f"CLAIMS_CREW_HOME={tmp_path / '.claims-crew'}  # default" in lines
    assert f"CLAIMS_CREW_CONFIG={tmp_path / 'config'}  # default" in lines
    assert f"CLAIMS_CREW_POLICIES={tmp_path / 'mine'}  # environment" in lines
    assert "CLAIMS_CREW_HOME=  # default" not in lines
