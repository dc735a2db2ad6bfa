"""The scripted OpenAI-compatible server itself, through the official client CrewAI uses: each
reply kind and fault arrives as a real provider's would."""

from __future__ import annotations

import json
import threading
import time

import openai
import pytest

from tests.support.openai_server import (
    BadJSON,
    ChatRequest,
    Hang,
    Reply,
    StartServer,
    Status,
    Text,
    ToolCall,
    Truncated,
)

ASK = [{"role": "user", "content": "Is a burst pipe covered?"}]


def client(base_url: str, **options: float) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=base_url,
        api_key="sk-test-not-a-real-key",
        max_retries=int(options.get("retries", 0)),
        timeout=options.get("timeout", 10),
    )


def test_text_and_tool_calls_arrive_as_completions(openai_server: StartServer) -> None:
    replies: list[Reply] = [ToolCall("policy_lookup", {"clause_id": "4.2(b)"}), Text("covered")]
    server = openai_server(lambda _request: replies.pop(0))
    chat = client(server.base_url).chat.completions

    called = chat.create(model="gpt-4o-mini", messages=ASK, tools=[_tool()])
    call = called.choices[0].message.tool_calls
    assert called.choices[0].finish_reason == "tool_calls" and call is not None
    assert (call[0].function.name, call[0].function.arguments) == (
        "policy_lookup",
        '{"clause_id": "4.2(b)"}',
    )
    answered = chat.create(model="gpt-4o-mini", messages=ASK)
    assert answered.choices[0].message.content == "covered"
    assert answered.usage is not None and answered.usage.prompt_tokens == 5
    first, second = server.requests
    assert first.tools == ["policy_lookup"] and second.tools == []
    assert second.text == "Is a burst pipe covered?"


def test_a_stream_carries_the_same_answer(openai_server: StartServer) -> None:
    server = openai_server(lambda _request: Text("covered"))
    stream = client(server.base_url).chat.completions.create(
        model="gpt-4o-mini", messages=ASK, stream=True
    )
    assert "".join(chunk.choices[0].delta.content or "" for chunk in stream) == "covered"


def test_errors_are_http_errors_and_a_429_says_when_to_retry(openai_server: StartServer) -> None:
    replies: list[Reply] = [Status(500, "upstream exploded"), Status(429, retry_after=0.5)]
    server = openai_server(lambda _request: replies.pop(0))
    chat = client(server.base_url).chat.completions
    with pytest.raises(openai.InternalServerError, match="upstream exploded"):
        chat.create(model="gpt-4o-mini", messages=ASK)
    with pytest.raises(openai.RateLimitError) as limited:
        chat.create(model="gpt-4o-mini", messages=ASK)
    assert limited.value.response.headers["retry-after"] == "0.5"


def test_bad_json_is_a_200_that_does_not_parse(openai_server: StartServer) -> None:
    server = openai_server(lambda _request: BadJSON())
    with pytest.raises(json.JSONDecodeError):  # what the client lets through, as CrewAI sees it
        client(server.base_url).chat.completions.create(model="gpt-4o-mini", messages=ASK)


def test_a_truncated_answer_is_a_200_cut_off_inside_its_text(openai_server: StartServer) -> None:
    server = openai_server(lambda _request: Truncated("The burst pipe is covered under 4.2(b)."))
    raw = client(server.base_url).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=ASK
    )
    body = raw.http_response.text
    assert raw.http_response.status_code == 200
    assert body.endswith('"content": "The burst pipe is c')  # half of the text
    with pytest.raises(json.JSONDecodeError, match="Unterminated string"):
        raw.parse()


def test_a_held_call_times_out_and_is_dropped_when_the_server_stops(
    openai_server: StartServer,
) -> None:
    server = openai_server(lambda _request: Hang())
    with pytest.raises(openai.APITimeoutError):
        client(server.base_url, timeout=0.3).chat.completions.create(
            model="gpt-4o-mini", messages=ASK
        )
    errors: list[BaseException] = []

    def wait_without_limit() -> None:
        try:
            client(server.base_url, timeout=60).chat.completions.create(
                model="gpt-4o-mini", messages=ASK
            )
        except openai.APIError as exc:
            errors.append(exc)

    waiting = threading.Thread(target=wait_without_limit)
    waiting.start()
    while len(server.requests) < 2:
        time.sleep(0.01)
    server.stop()
    waiting.join(10)
    assert not waiting.is_alive()
    assert [type(e) for e in errors] == [openai.APIConnectionError]


def test_every_request_is_kept_with_what_it_carried(openai_server: StartServer) -> None:
    seen: list[ChatRequest] = []

    def respond(request: ChatRequest) -> Reply:
        seen.append(request)
        return Text("ok")

    server = openai_server(respond)
    messages = [
        {"role": "system", "content": "You are Claims intake analyst."},
        {"role": "user", "content": "claim C-1"},
        {"role": "tool", "tool_call_id": "call_1", "content": "clause 4.2(b)"},
    ]
    client(server.base_url).chat.completions.create(model="gpt-4o-mini", messages=messages)  # type: ignore[arg-type]
    assert seen == server.requests
    assert seen[0].system == "You are Claims intake analyst."
    assert seen[0].tool_results == ["clause 4.2(b)"]
    assert seen[0].headers["Authorization"] == "Bearer sk-test-not-a-real-key"


def _tool() -> dict[str, object]:
    return {
        "type": "function",
        "function": {
            "name": "policy_lookup",
            "parameters": {"type": "object", "properties": {"clause_id": {"type": "string"}}},
        },
    }
