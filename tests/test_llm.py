"""Which model each agent gets: MODEL, ADJUDICATOR_MODEL, an agent's own llm:, or the local one."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims_crew.crew.crew import ClaimsCrew
from claims_crew.llms.select import configured_model, default_llm_factory
from claims_crew.policy.library import PolicyLibrary
from tests.support.crew import config_with


@pytest.fixture
def remote_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")


def test_model_names_every_agent_and_adjudicator_model_overrides_one(
    remote_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADJUDICATOR_MODEL", "anthropic/claude-sonnet-4-5")
    assert configured_model("policy") == "openai/gpt-4o-mini"
    assert configured_model("adjudicator") == "anthropic/claude-sonnet-4-5"
    llm_for = default_llm_factory()
    assert "gpt-4o-mini" in llm_for("intake").model
    assert "claude-sonnet-4-5" in llm_for("adjudicator").model


def test_an_agents_own_llm_in_yaml_wins(
    remote_env: None, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    config = config_with(tmp_path, "fraud", "llm", "anthropic/claude-haiku-4-5")
    crew = ClaimsCrew("HM-HOME-001", default_llm_factory(), sample_library, config)
    assert "claude-haiku-4-5" in crew.fraud().llm.model
    assert "gpt-4o-mini" in crew.policy().llm.model


def test_nothing_configured_means_the_local_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MODEL", raising=False)
    llm_for = default_llm_factory()
    local = llm_for("intake")
    assert local.model.startswith("local/") and local.model.endswith(".gguf")
    assert llm_for("fraud") is local  # one set of weights in memory, shared by the agents


def test_a_remote_model_gets_the_runs_call_timeout_and_retries(
    remote_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI's client would wait 600 s a call; the run's limits replace its defaults."""
    default = default_llm_factory()("policy")
    assert (default.timeout, default.max_retries) == (120.0, 2)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_TIMEOUT", "7.5")
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    llm = default_llm_factory()("policy")
    assert (llm.timeout, llm.max_retries) == (7.5, 0)
    assert llm._get_client_params()["timeout"] == 7.5  # what reaches the OpenAI client
