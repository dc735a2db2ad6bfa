"""llms/providers/: each provider's facts in one module, gathered by one registry, free of CrewAI.

The wire itself is tested against scripted servers (test_provider_wires.py); these hold the
registry together and what a provider's error means.
"""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import httpx
import pytest

from claims_crew.crew.images import MAX_IMAGES
from claims_crew.llms.endpoints import ModelChoice
from claims_crew.llms.providers import BY_PREFIX, MODULES, PROVIDERS, provider_for
from claims_crew.llms.providers.errors import (
    HOPELESS,
    failure_code,
    provider_failed,
    retry_after,
    stops_the_batch,
)
from claims_crew.llms.select import client_options, for_agent
from claims_crew.settings import Limits
from tests.support.paths import ROOT

WORKAROUNDS = ROOT / "src" / "claims_crew" / "crew" / "workarounds"


class Refused(Exception):
    """A provider SDK's error: the HTTP status on `status_code`, the response beside it."""

    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.response = SimpleNamespace(headers=headers or {})


def test_every_prefix_names_one_provider_and_every_provider_is_registered() -> None:
    prefixes = [prefix for p in PROVIDERS for prefix in p.prefixes]
    assert len(prefixes) == len(set(prefixes))
    assert [p for m in MODULES for p in m.PROVIDERS] == list(PROVIDERS)
    assert provider_for("claude") is provider_for("anthropic")
    assert provider_for("google") is provider_for("gemini")
    assert provider_for("nonesuch") is None


def test_each_workaround_a_provider_names_is_a_module_of_crew_workarounds() -> None:
    named = {w for p in PROVIDERS for w in p.workarounds}
    assert named and all((WORKAROUNDS / f"{w}.py").is_file() for w in named)


def test_a_claim_s_photos_stay_under_every_provider_s_cap() -> None:
    caps = [p.images_per_request for p in PROVIDERS if p.images_per_request is not None]
    assert caps and min(caps) >= MAX_IMAGES


def test_the_providers_load_without_crewai() -> None:
    code = (
        "import json, sys; import claims_crew.llms.providers, claims_crew.llms.endpoints; "
        "print(json.dumps('crewai' in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) is False


@pytest.mark.parametrize(
    ("model", "interceptor", "own_params", "copied"),
    [
        ("openai/gpt-4o-mini", True, False, False),
        ("claude/claude-haiku-4-5", True, False, False),
        ("ollama_chat/llama3.2", True, False, False),
        ("hosted_vllm/qwen", True, False, False),
        ("gemini/gemini-2.0-flash", False, True, True),
        ("bedrock/anthropic.claude-3-haiku-20240307-v1:0", False, False, False),
    ],
)
def test_a_client_is_built_from_its_provider_s_facts(
    model: str, interceptor: bool, own_params: bool, copied: bool
) -> None:
    choice = ModelChoice(model, "http://127.0.0.1:9/v1", None)
    options = client_options(choice, Limits(call_timeout_s=7, retries=2))
    assert ("interceptor" in options) is interceptor
    assert ("client_params" in options) is own_params
    if own_params:
        http = options["client_params"]["http_options"]
        assert (http["timeout"], http["retry_options"], http["base_url"]) == (
            7000,
            {"attempts": 3},
            "http://127.0.0.1:9/v1",
        )
    llm = SimpleNamespace(model_copy=lambda: "a copy")
    assert (for_agent(llm, choice) == "a copy") is copied  # type: ignore[arg-type]


@pytest.mark.parametrize(("status", "code"), sorted(HOPELESS.items()))
def test_a_refusal_stops_the_batch_and_is_no_provider_failure(status: int, code: str) -> None:
    error = Refused(status)
    assert failure_code(error) == code and stops_the_batch(code)
    assert not provider_failed([error])


def test_a_429_is_rate_limited_with_the_provider_s_retry_after() -> None:
    error = Refused(429, {"retry-after": "2.5"})
    assert failure_code(error) == "rate_limited" and not stops_the_batch("rate_limited")
    assert retry_after(error) == 2.5
    assert retry_after(Refused(429, {"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"})) is None


def test_a_provider_s_failure_falls_back() -> None:
    assert provider_failed([Refused(529)])
    assert provider_failed([httpx.ReadTimeout("slow")])
    assert failure_code(TimeoutError("socket")) == "timeout"


def test_a_client_s_own_timeout_error_is_a_timeout() -> None:
    """Anthropic's APITimeoutError ends the chain without the socket's timeout behind it."""
    timeout = type("APITimeoutError", (Exception,), {})
    assert failure_code(timeout("Request timed out.")) == "timeout"
    assert BY_PREFIX["anthropic"].timeout_errors == ("APITimeoutError",)


def test_any_other_error_is_the_crew_s() -> None:
    assert failure_code(RuntimeError("boom")) == "crew_failed"
