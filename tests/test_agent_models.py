"""`config check` names each agent's model, endpoint and key variable, never the key."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from tests.support.paths import ROOT

SECRET = "sk-secret-never-shown"


@pytest.fixture
def two_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("MODEL_BASE_URL", "http://gateway.internal:4000/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("POLICY_MODEL", "anthropic/claude-sonnet-4-5")
    monkeypatch.setenv("POLICY_MODEL_BASE_URL", "http://claude.internal")
    monkeypatch.setenv("POLICY_MODEL_API_KEY", SECRET)
    monkeypatch.setenv("FRAUD_MODEL", "gemini/gemini-2.0-flash")  # no base URL of its own


@pytest.mark.usefixtures("two_providers")
def test_config_check_shows_each_agent_s_model_and_endpoint_and_no_key() -> None:
    result = CliRunner().invoke(
        main, ["config", "check", "--config-dir", str(ROOT / "config")], env={"COLUMNS": "160"}
    )
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output

    as_json = CliRunner().invoke(
        main, ["config", "check", "--config-dir", str(ROOT / "config"), "--json"]
    )
    models = {m["agent"]: m for m in json.loads(as_json.output)["models"]}
    assert SECRET not in as_json.output
    assert models["policy"] == {
        "agent": "policy",
        "model": "anthropic/claude-sonnet-4-5",
        "endpoint": "http://claude.internal",
        "key_variable": "POLICY_MODEL_API_KEY",
    }
    # An agent's own model without its own base URL takes MODEL_BASE_URL, like every agent.
    assert models["fraud"]["endpoint"] == "http://gateway.internal:4000/v1"
    assert models["fraud"]["key_variable"] == "GEMINI_API_KEY"
    assert models["intake"]["model"] == "openai/gpt-4o-mini"
    assert models["intake"]["key_variable"] == "OPENAI_API_KEY"
    for row in models.values():
        assert row["model"] in result.output and row["endpoint"] in result.output


def test_with_no_model_named_every_agent_is_local(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("MODEL", "ADJUDICATOR_MODEL", "POLICY_MODEL", "FRAUD_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    result = CliRunner().invoke(
        main, ["config", "check", "--config-dir", str(ROOT / "config"), "--json"]
    )
    models = json.loads(result.output)["models"]
    assert {m["agent"] for m in models} == {"intake", "policy", "fraud", "adjudicator"}
    assert {m["model"] for m in models} == {"local"}
