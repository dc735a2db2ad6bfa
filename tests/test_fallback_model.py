"""CLAIMS_CREW_FALLBACK_MODEL: a claim whose provider fails for good (5xx through every retry)
is reviewed again on the fallback model, at its own endpoint; the record names the models that
decided and why, `review show` and the report say so. Unset, the claim fails as before. A
refusal (401) does not fall back: it stops the batch.

Two scripted servers stand for the two providers; CrewAI's own OpenAI client talks to both.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.batch import run_batch
from claims_crew.store import Store
from claims_crew.vocabulary import FALLBACK_NOTE
from tests.support.openai_server import OpenAIServer, StartServer, Status
from tests.support.provider import (
    CALLS_PER_REVIEW,
    CrewScript,
    point_model_at,
    provider_settings,
    water_claims,
    water_replies,
)

FALLBACK = "openai/gpt-fallback"


def start_two(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, status: int = 500
) -> tuple[OpenAIServer, OpenAIServer]:
    """The primary answers `status` to everything; the fallback answers the water script."""
    primary = openai_server(lambda _request: Status(status, "provider failure"))
    fallback = openai_server(water_replies(CrewScript(), "F-1"))
    point_model_at(primary, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "1")
    monkeypatch.setenv("CLAIMS_CREW_FALLBACK_BASE_URL", fallback.base_url)
    return primary, fallback


def test_a_claim_whose_provider_fails_is_decided_on_the_fallback(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    primary, fallback = start_two(openai_server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_FALLBACK_MODEL", FALLBACK)
    store = Store()
    paths = water_claims(tmp_path / "inbox", "F-1")

    (item,) = run_batch(paths, provider_settings(PolicyLibrary(), store), 1)

    record = item.record
    assert record is not None and record.status == "reviewed", item
    assert record.resolution is not None and record.resolution.outcome == "ESCALATED"
    # The primary was tried, with the client's retry; then every call went to the fallback.
    assert len(primary.requests) == 2
    assert len(fallback.requests) == CALLS_PER_REVIEW
    assert {r.body["model"] for r in fallback.requests} == {"gpt-fallback"}
    assert {record.models[a] for a in ("intake", "policy", "fraud")} == {"gpt-fallback"}
    assert "primary failed with crew_failed" in record.models[FALLBACK_NOTE]
    assert "500" in record.models[FALLBACK_NOTE]
    # Kept as recorded, shown to the reviewer, and counted in the report.
    assert store.claim_record("F-1").models == record.models  # type: ignore[union-attr]
    shown = CliRunner().invoke(main, ["review", "show", "F-1"], env={"COLUMNS": "250"})
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())
    assert "decided on the fallback model: the primary failed with crew_failed" in said
    assert "policy gpt-fallback" in said
    reported = CliRunner().invoke(main, ["report"], env={"COLUMNS": "200"})
    assert reported.exit_code == 0, reported.output
    assert "Fallback model" in reported.output
    page = tmp_path / "report.html"
    written = CliRunner().invoke(main, ["report", "--html", str(page)])
    assert written.exit_code == 0, written.output
    assert "1 of 1</span>" in page.read_text(encoding="utf-8").split("decided on the fallback")[1]


def test_without_the_setting_the_claim_fails_as_before(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    primary, fallback = start_two(openai_server, monkeypatch)
    store = Store()
    paths = water_claims(tmp_path / "inbox", "F-1")
    (item,) = run_batch(paths, provider_settings(PolicyLibrary(), store), 1)
    assert item.record is not None and item.record.error is not None
    assert item.record.error.code == "crew_failed"
    assert FALLBACK_NOTE not in item.record.models
    assert fallback.requests == [] and len(primary.requests) == 2


def test_a_refusal_does_not_fall_back(
    tmp_path: Path, openai_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, fallback = start_two(openai_server, monkeypatch, status=401)
    monkeypatch.setenv("CLAIMS_CREW_FALLBACK_MODEL", FALLBACK)
    store = Store()
    paths = water_claims(tmp_path / "inbox", "F-1")
    (item,) = run_batch(paths, provider_settings(PolicyLibrary(), store), 1)
    assert item.record is not None and item.record.error is not None
    assert item.record.error.code == "invalid_key"
    assert fallback.requests == []


def test_the_fallback_replaces_an_agents_own_llm_and_keeps_a_gemini_gateway(
    sample_library: PolicyLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent whose agents.yaml names its own model names the provider that failed: on the
    fallback it takes the fallback's model too. A Gemini fallback's base URL reaches
    google-genai (which reads none of CrewAI's base_url), as the primary's does."""
    from claims_crew.crew.crew import ClaimsCrew
    from claims_crew.llms.fallback import fallback_factory
    from claims_crew.settings import Limits
    from tests.support.crew import config_with

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    config = config_with(tmp_path, "fraud", "llm", "anthropic/claude-haiku-4-5")
    llm_for = fallback_factory(FALLBACK, Limits())
    primary = ClaimsCrew("HM-HOME-001", llm_for, sample_library, config)
    assert "claude-haiku-4-5" in primary.fraud().llm.model
    again = ClaimsCrew("HM-HOME-001", llm_for, sample_library, config, yaml_models=False)
    assert "gpt-fallback" in again.fraud().llm.model
    assert "gpt-fallback" in again.policy().llm.model

    pytest.importorskip("google.genai")
    monkeypatch.setenv("GEMINI_API_KEY", "test-not-a-real-key")
    monkeypatch.setenv("CLAIMS_CREW_FALLBACK_BASE_URL", "http://127.0.0.1:9/gemini")
    gemini = fallback_factory("gemini/gemini-2.0-flash", Limits())
    first, second = gemini("policy"), gemini("fraud")
    assert first is not second  # a copy per agent: the client keeps a call's tools on itself
    assert first.client_params["http_options"]["base_url"] == "http://127.0.0.1:9/gemini"
    # The provider's usual key, or one of its own where the fallback is another account's.
    assert fallback_factory(FALLBACK, Limits())("policy").api_key == "sk-test-not-a-real-key"
    monkeypatch.setenv("CLAIMS_CREW_FALLBACK_API_KEY", "sk-fallback-not-a-real-key")
    assert fallback_factory(FALLBACK, Limits())("policy").api_key == "sk-fallback-not-a-real-key"


def test_a_request_held_by_the_rate_limit_past_the_deadline_does_not_fall_back() -> None:
    """The wire gate refuses a request at the claim's deadline as a transport error; it was
    never sent, so the provider did not fail and the fallback is not tried."""
    import httpx

    from claims_crew.llms.providers.errors import provider_failed
    from claims_crew.llms.wire_gate import WireGateClosed

    assert provider_failed([httpx.ConnectError("connection refused")])
    assert not provider_failed([RuntimeError("wrapped"), WireGateClosed("deadline passed")])
