"""Anthropic's Messages API for the scripted server (openai_server.py): `POST /v1/messages`.

CrewAI 1.15 talks to Claude through its own client (crewai/llms/providers/anthropic) on the
`anthropic` SDK, which posts `{base_url}/v1/messages`, streams with server-sent events
(message_start, content_block_start/delta/stop, message_delta, message_stop), sends tools as
`{name, input_schema}` and their results back as `tool_result` blocks. Asked for structured
output, it forces a `structured_output` tool on older model names (the answer then comes as that
tool's input) and uses the `output_format` beta on newer ones (the answer is the text).
`/v1/messages/count_tokens` is answered with a word count, as usage is everywhere here.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.openai_server import (
    Answer,
    Blocked,
    ChatRequest,
    Status,
    ToolCall,
    sse,
    structured,
    usage,
)

STRUCTURED_TOOL = "structured_output"  # CrewAI's forced tool for structured output
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _words(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return str(content or "")


class AnthropicWire:
    """The Messages API; `base_url` is the host, as the SDK adds `/v1/messages` itself."""

    def base_url(self, host: str, port: int) -> str:
        return f"http://{host}:{port}"

    def routes(self, path: str) -> bool:
        return path.split("?")[0].rstrip("/").endswith("/messages")

    def fixed(self, path: str, chat: dict[str, Any]) -> dict[str, Any] | None:
        if not path.split("?")[0].rstrip("/").endswith("/messages/count_tokens"):
            return None
        return {
            "input_tokens": sum(len(_words(m.get("content")).split()) for m in chat["messages"])
        }

    def as_chat(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if body.get("system"):
            messages.append({"role": "system", "content": _words(body["system"])})
        for message in body.get("messages") or []:
            content = message.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            for block in blocks:
                if block.get("type") == "tool_result":
                    messages.append({"role": "tool", "content": _words(block.get("content"))})
            text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
            if text:
                messages.append({"role": message.get("role", "user"), "content": text})
        tools = [
            {"type": "function", "function": {"name": t["name"]}} for t in body.get("tools") or []
        ]
        return {"model": body.get("model"), "messages": messages, "tools": tools}

    def streams(self, path: str, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def error(self, status: Status) -> dict[str, Any]:
        kind = ERROR_TYPES.get(status.code, "api_error")
        return {"type": "error", "error": {"type": kind, "message": status.message}}

    def completion(self, reply: Answer, request: ChatRequest, number: int) -> dict[str, Any]:
        blocks, stop = self._content(reply, request, number)
        prompt, written = usage(request, blocks)
        return {
            "id": f"msg_{number}",
            "type": "message",
            "role": "assistant",
            "model": str(request.raw.get("model", "scripted")),
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": written},
        }

    def events(self, reply: Answer, request: ChatRequest, number: int) -> bytes:
        message = self.completion(reply, request, number)
        blocks, used = message.pop("content"), message.pop("usage")
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {**used, "output_tokens": 0},
        }
        events: list[tuple[str | None, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": start})
        ]
        for index, block in enumerate(blocks):
            if block["type"] == "tool_use":
                opened = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                opened = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            events += [
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": opened},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]
        stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": stop,
                    "usage": {"output_tokens": used["output_tokens"]},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        return sse(events)

    @staticmethod
    def _content(
        reply: Answer, request: ChatRequest, number: int
    ) -> tuple[list[dict[str, Any]], str]:
        if isinstance(reply, Blocked):
            return [], "refusal"
        if (request.raw.get("tool_choice") or {}).get("name") == STRUCTURED_TOOL:
            reply = structured(reply, STRUCTURED_TOOL)  # the client forced that tool
        if isinstance(reply, ToolCall):
            use = {
                "type": "tool_use",
                "id": f"toolu_{number}",
                "name": reply.name,
                "input": reply.arguments,
            }
            return [use], "tool_use"
        return [{"type": "text", "text": reply.content}], "end_turn"
