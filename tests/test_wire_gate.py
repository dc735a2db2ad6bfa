"""The run's rate limit taken at the wire (llms/wire_gate.py): every request a client sends, its
own retries included, takes one place, and no request takes two (the hook and the wire):
through CrewAI's interceptor for OpenAI and Anthropic, an httpx request hook for Gemini.

Driven through CrewAI's own clients against the scripted servers of each wire format.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claims_crew.llms.endpoints import ModelChoice
from claims_crew.llms.select import client_options
from claims_crew.llms.wire_gate import wire_gated
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.batch import run_batch
from claims_crew.settings import Limits
from claims_crew.store import Store
from tests.support.openai_server import StartServer, Status
from tests.support.provider import (
    CALLS_PER_REVIEW,
    CrewScript,
    point_model_at,
    provider_settings,
    water_claims,
    water_intake,
    water_replies,
    wire_name,
)


@pytest.mark.parametrize(
    "model",
    [
        "openai/gpt-4o-mini",
        "anthropic/claude-3-5-haiku-latest",
        "ollama/llama3.2",
        "hosted_vllm/qwen",
        "gemini/gemini-2.0-flash",  # an httpx request hook: CrewAI refuses it an interceptor
    ],
)
def test_each_provider_s_client_waits_at_the_wire(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crewai import LLM

    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(variable, "test-key-not-a-real-one")
    assert wire_gated(LLM(**client_options(ModelChoice(model, None, None), Limits())))
    # A client built without the run's options has no gate: the pre-call hook takes the place.
    assert not wire_gated(LLM(model=model))


def test_every_request_on_the_wire_takes_one_place_retries_included(
    provider_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    script = water_replies(CrewScript(), "G-1")
    # Intake's first request fails once with a 500; the client's own retry then gets the facts.
    script.set("G-1", "intake", Status(500, "try again"), water_intake)
    server = provider_server(script)
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "1")
    monkeypatch.setenv("CLAIMS_CREW_MAX_RPM", "1000")
    settings = provider_settings(sample_library, Store(tmp_path / "s.sqlite"))

    (item,) = run_batch(water_claims(tmp_path / "inbox", "G-1"), settings, 1)

    assert item.record is not None and item.record.status == "reviewed", item
    # Anthropic's client counts tokens first, a request of its own that the provider limits
    # apart from messages: not under the cap.
    sent = [r for r in server.requests if not r.path.endswith("/count_tokens")]
    assert settings.rate_limit is not None
    taken = settings.rate_limit.in_window
    if wire_name(server) != "gemini":  # google-genai retries a 500 more than once
        assert len(sent) == CALLS_PER_REVIEW + 1  # the failed request went out twice
    assert len(sent) > CALLS_PER_REVIEW and taken == len(sent)
