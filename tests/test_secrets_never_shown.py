"""A secret is never shown, whatever holds it: a key written in a settings file is redacted as
one in the environment is; a URL's password is masked in `config show`, `config check` and an
error's text; a bad value that is a secret, or looks like a key, is refused without being said.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.cli._output import fail
from claims_crew.errors import ConfigError
from claims_crew.records import RunError
from claims_crew.settings import current
from claims_crew.settings.masking import looks_like_key, without_passwords
from claims_crew.settings.redact import redact
from tests.support.paths import ROOT

KEY = "sk-file-held-key-0123456789abcdef"
PASSWORD = "gw-pass-Zq81x"
# Each URL setting a password may be written in, with a password of its own.
URLS = {
    "MODEL_BASE_URL": f"https://team:{PASSWORD}1@gw.example/v1",
    "CLAIMS_CREW_FALLBACK_BASE_URL": f"https://team:{PASSWORD}2@fallback.example/v1",
    "OLLAMA_HOST": f"http://ollama:{PASSWORD}3@ollama.example:11434",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder as the working folder, with none of the URL settings from outside."""
    monkeypatch.chdir(tmp_path)
    for name in (*URLS, "MODEL", "POLICY_MODEL", "POLICY_MODEL_BASE_URL", "POLICY_MODEL_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ("claims-crew.toml", f'POLICY_MODEL_API_KEY = "{KEY}"\n'),
        ("pyproject.toml", f'[tool.claims-crew]\npolicy_model_api_key = "{KEY}"\n'),
    ],
)
def test_a_key_written_in_a_settings_file_is_redacted(project: Path, file: str, text: str) -> None:
    (project / file).write_text(text)
    assert current().policy_model_api_key == KEY  # sent to the provider ...
    said = redact(f"401: Authorization: Bearer {KEY}")  # ... and never said back
    assert KEY not in said and "[redacted: POLICY_MODEL_API_KEY]" in said
    assert KEY not in RunError(code="invalid_key", message=f"refused {KEY}").message


@pytest.mark.parametrize("where", ["environment", "file"])
def test_a_url_s_password_is_masked_in_config_show(
    project: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    if where == "environment":
        for name, url in URLS.items():
            monkeypatch.setenv(name, url)
    else:
        lines = "".join(f'{name} = "{url}"\n' for name, url in URLS.items())
        (project / "claims-crew.toml").write_text(lines)
    shown = CliRunner().invoke(main, ["config", "show"])
    as_json = CliRunner().invoke(main, ["config", "show", "--json"])
    assert shown.exit_code == 0 and as_json.exit_code == 0, shown.output + as_json.output
    assert PASSWORD not in shown.output and PASSWORD not in as_json.output
    assert "MODEL_BASE_URL=https://team:****@gw.example/v1  #" in shown.output
    rows = {row["name"]: row["value"] for row in json.loads(as_json.output)["settings"]}
    assert rows["OLLAMA_HOST"] == "http://ollama:****@ollama.example:11434"
    assert rows["CLAIMS_CREW_FALLBACK_BASE_URL"] == "https://team:****@fallback.example/v1"


def test_a_url_s_password_is_masked_in_config_check(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OLLAMA_HOST is where an Ollama model's calls go; an agent's own base URL its own model's."""
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(project))  # no policies to check against
    monkeypatch.setenv("MODEL", "ollama/llama3")
    monkeypatch.setenv("OLLAMA_HOST", URLS["OLLAMA_HOST"])
    monkeypatch.setenv("POLICY_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("POLICY_MODEL_BASE_URL", URLS["MODEL_BASE_URL"])
    folder = str(ROOT / "config")
    shown = CliRunner().invoke(main, ["config", "check", "--config-dir", folder])
    as_json = CliRunner().invoke(main, ["config", "check", "--config-dir", folder, "--json"])
    assert shown.exit_code == 0 and as_json.exit_code == 0, shown.output
    assert PASSWORD not in shown.output + shown.stderr
    assert PASSWORD not in as_json.output
    ollama = "http://ollama:****@ollama.example:11434"
    assert f"model fraud: ollama/llama3 at {ollama} (key from" in shown.output
    models = {row["agent"]: row["endpoint"] for row in json.loads(as_json.stdout)["models"]}
    assert models == {
        "intake": ollama,
        "policy": "https://team:****@gw.example/v1",
        "fraud": ollama,
        "adjudicator": ollama,
    }


def test_an_error_that_shows_any_url_masks_its_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Even a URL no setting holds (one a gateway named in its answer)."""
    said = "cannot reach postgresql://claims:hunter2-xyz@db.internal:5432/c (refused)"
    with pytest.raises(SystemExit):
        fail("config", said, 2, as_json=True)
    printed = capsys.readouterr()
    assert "hunter2" not in printed.out + printed.err
    assert (
        "postgresql://claims:****@db.internal:5432/c" in json.loads(printed.out)["error"]["message"]
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CLAIMS_CREW_MAX_RPM", "sk-proj-0123456789abcdefABCDEF"),  # an OpenAI key's shape
        ("CLAIMS_CREW_WORKERS", "sk-ant-api03-0123456789abcdef"),  # Anthropic's
        ("CLAIMS_CREW_MODEL_TIMEOUT", "AIzaSyA0123456789abcdefghij"),  # Google's
        ("CLAIMS_CREW_CONCURRENCY", "q8Xv2LmT9rZk4WcN7bYp3HsJ6dFg"),  # a long random token
    ],
)
def test_a_bad_value_that_looks_like_a_key_is_not_said(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        current()
    said = str(raised.value)
    assert value not in said and said.startswith(f"{name}: expected ")
    result = CliRunner().invoke(main, ["config", "show", "--json"])
    assert result.exit_code == 2 and value not in result.output + result.stderr


def test_a_secret_setting_s_bad_value_is_not_said(project: Path) -> None:
    """A key written as a TOML number is refused (text expected), without its digits."""
    (project / "claims-crew.toml").write_text("OPENAI_API_KEY = 918273645546372819\n")
    with pytest.raises(ConfigError) as raised:
        current()
    said = str(raised.value)
    assert "918273645546372819" not in said
    assert said.startswith("OPENAI_API_KEY (in ") and said.endswith("expected text")


def test_a_plain_bad_value_is_still_said() -> None:
    assert not looks_like_key("x") and not looks_like_key("many")
    assert not looks_like_key("2025-11-05T09:00:00+00:00")
    assert not looks_like_key("/srv/claims/models/smollm2-135m-instruct.gguf")
    assert looks_like_key("sk-0123") and looks_like_key("AIza0123")


def test_a_url_s_password_is_masked_wherever_it_is_in_a_text() -> None:
    said = "from https://a:b@h/x and http://u:p@ss@host:1?q, not https://host/x or a:b@c"
    assert without_passwords(said) == (
        "from https://a:****@h/x and http://u:****@host:1?q, not https://host/x or a:b@c"
    )
