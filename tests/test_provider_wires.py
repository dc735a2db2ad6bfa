"""Every provider on the wire: CrewAI 1.15's own clients for OpenAI, Anthropic and Gemini (and its
OpenAI-compatible ones for Ollama and vLLM) against scripted servers of each wire format
(tests/support/openai_server.py, anthropic_wire.py, gemini_wire.py), the pipeline real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from claims_crew.llms.endpoints import model_choice
from claims_crew.llms.select import client_options
from claims_crew.models import ParseFailure
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord
from claims_crew.run.batch import run_batch
from claims_crew.settings import Limits
from claims_crew.store import Store
from tests.support.anthropic_wire import AnthropicWire
from tests.support.egress import LOOPBACK, watching
from tests.support.gemini_wire import GeminiWire
from tests.support.openai_server import (
    Blocked,
    ChatRequest,
    OpenAIServer,
    StartServer,
    Status,
    Text,
    Wire,
)
from tests.support.provider import (
    CALLS_PER_REVIEW,
    CLAUDE_NATIVE,
    CrewScript,
    agent_of,
    answer,
    point_model_at,
    provider_settings,
    water_claims,
    water_replies,
)
from tests.support.sample_inbox import INBOX, sample_script
from tests.support.wires import WIRES


def records(paths: list[Path], library: PolicyLibrary, store: Store) -> dict[str, ClaimRecord]:
    items = run_batch(paths, provider_settings(library, store), 1)
    return {i.record.claim_id: i.record for i in items if i.record is not None}


def outcomes(done: dict[str, ClaimRecord]) -> dict[str, tuple[Any, ...]]:
    """What a run decided and how, claim by claim: the parts that must not depend on the wire."""

    def answer_of(review: Any) -> str | None:
        return None if review is None or isinstance(review, ParseFailure) else review.answer

    return {
        claim_id: (
            r.status,
            r.resolution and (r.resolution.outcome, r.resolution.answer, r.resolution.rule),
            answer_of(r.policy),
            answer_of(r.fraud),
            getattr(r.policy, "source_checked", None),
            sorted(c for e in r.ledger for c in e.returned_clause_ids),
            r.model_calls,
            r.intake.model_dump() if r.intake is not None else None,
        )
        for claim_id, r in done.items()
    }


def _limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_CREW_MODEL_TIMEOUT", "30")
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "0")


@pytest.fixture(scope="module")
def through_openai() -> dict[str, dict[str, ClaimRecord]]:
    """The sample inbox's records through OpenAI's client, kept for the module under "openai":
    every wire is compared with the same scripted run, so the first test that needs it runs it
    (in its own home and settings) and the others read it."""
    return {}


def _sample_inbox_on(
    wire_name: str,
    paths: list[Path],
    library: PolicyLibrary,
    db: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[dict[str, ClaimRecord], OpenAIServer]:
    """The sample inbox decided through WIRE_NAME's client, every request kept on 127.0.0.1."""
    with OpenAIServer(sample_script(), wire=WIRES[wire_name][0]()) as server, watching() as hosts:
        point_model_at(server, monkeypatch)
        done = records(paths, library, Store(db))
    assert hosts and hosts <= LOOPBACK, hosts
    return done, server


@pytest.mark.parametrize("name", ["anthropic", "gemini"])
def test_the_sample_inbox_decides_alike_on_every_wire(
    name: str,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
    through_openai: dict[str, dict[str, ClaimRecord]],
) -> None:
    """The whole sample inbox through OpenAI's client, then through this provider's: the same
    facts, look-ups, ledger, decisions and calls, and tokens as this wire's server counted."""
    _limits(monkeypatch)
    paths = sorted(p for p in INBOX.iterdir() if p.suffix in {".json", ".yaml"})
    if "openai" not in through_openai:
        through_openai["openai"], _ = _sample_inbox_on(
            "openai", paths, sample_library, tmp_path / "openai.db", monkeypatch
        )
    runs = {"openai": through_openai["openai"]}
    runs[name], server = _sample_inbox_on(
        name, paths, sample_library, tmp_path / f"{name}.db", monkeypatch
    )

    assert all(r.status == "reviewed" for r in runs[name].values()), {
        c: r.error for c, r in runs[name].items() if r.error
    }
    assert outcomes(runs[name]) == outcomes(runs["openai"])
    assert len(runs[name]) == len(paths)
    sent = server.calls
    for record in runs[name].values():
        usage = record.tokens_by_task
        assert all(u.prompt > 0 and u.completion > 0 for u in usage.values()), record.claim_id
    policy_sent = [r for r in sent if agent_of(r) == "policy" and "C-1044" in r.system + r.text]
    assert runs[name]["C-1044"].tokens_by_task["policy_task"].prompt == sum(
        len(r.text.split()) for r in policy_sent
    )


def _one_water_claim(library: PolicyLibrary, tmp_path: Path) -> tuple[ClaimRecord, set[str]]:
    with watching() as hosts:
        done = records(water_claims(tmp_path / "inbox", "C-1"), library, Store(tmp_path / "s.db"))
    return done["C-1"], hosts


def test_model_base_url_keeps_every_request_on_127_0_0_1(
    provider_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """With MODEL_BASE_URL set, each provider's client sends every call there: the claim is
    decided from the scripted server's answers, and no other host is even looked up."""
    _limits(monkeypatch)
    server = provider_server(water_replies(CrewScript(), "C-1"))
    point_model_at(server, monkeypatch)

    record, hosts = _one_water_claim(sample_library, tmp_path)

    assert record.status == "reviewed", record.error
    assert len(server.calls) == CALLS_PER_REVIEW
    assert hosts and hosts <= LOOPBACK, hosts


@pytest.mark.parametrize(
    ("model", "variable", "url"),
    [
        # Ollama's own convention: a bare host:port, CrewAI adds the scheme and /v1.
        (
            "ollama/llama3.1",
            "OLLAMA_HOST",
            lambda s: s.base_url.removeprefix("http://")[: -len("/v1")],
        ),
        ("hosted_vllm/meta-llama/Llama-3.1-8B-Instruct", "VLLM_BASE_URL", lambda s: s.base_url),
    ],
    ids=["ollama", "vllm"],
)
def test_local_servers_are_reached_through_their_own_variables(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
    model: str,
    variable: str,
    url: Any,
) -> None:
    _limits(monkeypatch)
    server = openai_server(water_replies(CrewScript(), "C-1"))
    monkeypatch.setenv("MODEL", model)
    monkeypatch.delenv("MODEL_BASE_URL", raising=False)
    monkeypatch.setenv(variable, url(server))

    record, hosts = _one_water_claim(sample_library, tmp_path)

    assert record.status == "reviewed", record.error
    assert len(server.calls) == CALLS_PER_REVIEW
    assert {r.body["model"] for r in server.requests} == {model.split("/", 1)[1]}
    assert hosts <= LOOPBACK, hosts
    assert set(record.models.values()) == {model.split("/", 1)[1]}


def test_policy_and_fraud_run_on_different_providers(
    monkeypatch: pytest.MonkeyPatch, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """Policy on Anthropic and fraud on Gemini, each with its own base URL and key; the rest on
    MODEL. Each agent's calls reach its own server only, and the record names both models."""
    _limits(monkeypatch)
    script = water_replies(CrewScript(), "C-1")
    with (
        OpenAIServer(script) as rest,
        OpenAIServer(script, wire=AnthropicWire()) as claude,
        OpenAIServer(script, wire=GeminiWire()) as gemini,
    ):
        point_model_at(rest, monkeypatch)
        for agent, server, model in (
            ("POLICY", claude, WIRES["anthropic"][1]),
            ("FRAUD", gemini, WIRES["gemini"][1]),
        ):
            monkeypatch.setenv(f"{agent}_MODEL", model)
            monkeypatch.setenv(f"{agent}_MODEL_BASE_URL", server.base_url)
            monkeypatch.setenv(f"{agent}_MODEL_API_KEY", f"{agent.lower()}-key")

        record, hosts = _one_water_claim(sample_library, tmp_path)

    assert record.status == "reviewed", record.error
    assert {agent_of(r) for r in claude.calls} == {"policy"}
    assert {agent_of(r) for r in gemini.calls} == {"fraud"}
    assert {agent_of(r) for r in rest.calls} == {"intake"}
    assert {header(r, "x-api-key") for r in claude.calls} == {"policy-key"}
    assert {header(r, "x-goog-api-key") for r in gemini.calls} == {"fraud-key"}
    assert record.models["policy"].endswith("claude-3-5-haiku-latest")
    assert record.models["fraud"].endswith("gemini-2.0-flash")
    assert hosts <= LOOPBACK, hosts


def header(request: ChatRequest, name: str) -> str | None:
    return {k.lower(): v for k, v in request.headers.items()}.get(name)


class Verdict(BaseModel):
    answer: str
    confidence: float


def _call(server: OpenAIServer, model: str, monkeypatch: pytest.MonkeyPatch, **extra: Any) -> Any:
    from crewai import LLM

    point_model_at(server, monkeypatch, model)
    choice = model_choice("policy")
    assert choice is not None
    limits = Limits(call_timeout_s=10, retries=extra.pop("max_retries", 0), claim_deadline_s=0)
    return LLM(**client_options(choice, limits), **extra)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    ("wire", "model", "asked"),
    [
        (AnthropicWire, WIRES["anthropic"][1], "tool_choice"),
        (AnthropicWire, CLAUDE_NATIVE, "output_format"),
        (GeminiWire, WIRES["gemini"][1], "generationConfig"),
    ],
    ids=["claude-tool-fallback", "claude-beta", "gemini"],
)
def test_structured_output_comes_back_as_the_client_asked_for_it(
    monkeypatch: pytest.MonkeyPatch, wire: type[Wire], model: str, asked: str, stream: bool
) -> None:
    reply = answer({"answer": "covered", "confidence": 0.8})
    with OpenAIServer(lambda _r: reply, wire=wire()) as server:
        llm = _call(server, model, monkeypatch, stream=stream)
        got = llm.call("Is a burst pipe covered?", response_model=Verdict)

    [sent] = server.requests
    assert asked in sent.raw, sorted(sent.raw)
    parsed = got if isinstance(got, Verdict) else Verdict.model_validate_json(str(got))
    assert parsed == Verdict(answer="covered", confidence=0.8)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", ["anthropic", "gemini"])
def test_a_blocked_answer_is_never_taken_for_an_answer(
    monkeypatch: pytest.MonkeyPatch, name: str, stream: bool
) -> None:
    """A refusal (Anthropic) or a safety block (Gemini) comes back as an empty answer, never as
    words the crew would parse."""
    wire, model, _ = WIRES[name]
    with OpenAIServer(lambda _r: Blocked(), wire=wire()) as server:
        llm = _call(server, model, monkeypatch, stream=stream)
        got = llm.call("Describe the claim.")
    assert len(server.calls) == 1
    assert isinstance(got, str) and not got.strip(), got


@pytest.mark.parametrize("code", [429, 529], ids=["rate-limited", "overloaded"])
def test_claude_s_429_and_529_are_retried_after_their_retry_after(
    monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    replies = iter([Status(code, "busy", retry_after=1.5), Text("covered")])
    with OpenAIServer(lambda _r: next(replies), wire=AnthropicWire()) as server:
        llm = _call(server, WIRES["anthropic"][1], monkeypatch, max_retries=1)
        got = llm.call("Is a burst pipe covered?")

    first, second = server.calls
    assert got == "covered"
    # The client waited as long as the server asked, not its own first backoff (under a second).
    assert second.at - first.at >= 1.5
