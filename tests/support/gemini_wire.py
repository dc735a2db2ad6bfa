"""Gemini's API for the scripted server (openai_server.py): `models/{model}:generateContent`.

CrewAI 1.15 talks to Gemini through its own client (crewai/llms/providers/gemini) on the
`google-genai` SDK, which posts `{base_url}/v1beta/models/{model}:generateContent`, or
`:streamGenerateContent?alt=sse` for a stream (each event a whole partial response). A request
is `contents` of `parts` (text, `functionCall`, `functionResponse`) with a `systemInstruction`
and `tools` of `functionDeclarations`. Asked for structured output while tools are offered,
CrewAI adds a `structured_output` function for the answer; without tools it asks for JSON text.
A safety block is a candidate with `finishReason: SAFETY` and no content.
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

STRUCTURED_TOOL = "structured_output"  # CrewAI's STRUCTURED_OUTPUT_TOOL_NAME
STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
}


def _get(data: dict[str, Any], camel: str, snake: str) -> Any:
    return data.get(camel, data.get(snake))


def _parts_text(parts: list[dict[str, Any]]) -> str:
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))


class GeminiWire:
    """The Gemini Developer API; `base_url` is the host, as the SDK adds the version and path."""

    def base_url(self, host: str, port: int) -> str:
        return f"http://{host}:{port}"

    def routes(self, path: str) -> bool:
        route = path.split("?")[0]
        return route.endswith(":generateContent") or route.endswith(":streamGenerateContent")

    def fixed(self, path: str, chat: dict[str, Any]) -> dict[str, Any] | None:
        if not path.split("?")[0].endswith(":countTokens"):
            return None
        contents = chat.get("contents") or []
        return {
            "totalTokens": sum(len(_parts_text(c.get("parts") or []).split()) for c in contents)
        }

    def as_chat(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        system = _get(body, "systemInstruction", "system_instruction")
        if system:
            messages.append({"role": "system", "content": _parts_text(system.get("parts") or [])})
        for content in body.get("contents") or []:
            parts = content.get("parts") or []
            for part in parts:
                if response := _get(part, "functionResponse", "function_response"):
                    messages.append(
                        {"role": "tool", "content": json.dumps(response.get("response"))}
                    )
            if text := _parts_text(parts):
                role = "assistant" if content.get("role") == "model" else "user"
                messages.append({"role": role, "content": text})
        tools = [
            {"type": "function", "function": {"name": declaration["name"]}}
            for tool in body.get("tools") or []
            for declaration in _get(tool, "functionDeclarations", "function_declarations") or []
        ]
        model = path.split("/models/")[-1].split(":")[0]
        return {"model": model, "messages": messages, "tools": tools}

    def streams(self, path: str, body: dict[str, Any]) -> bool:
        return path.split("?")[0].endswith(":streamGenerateContent")

    def error(self, status: Status) -> dict[str, Any]:
        code = STATUSES.get(status.code, "INTERNAL")
        return {"error": {"code": status.code, "message": status.message, "status": code}}

    def completion(self, reply: Answer, request: ChatRequest, number: int) -> dict[str, Any]:
        parts, finish = self._parts(reply, request)
        prompt, written = usage(request, parts)
        candidate: dict[str, Any] = {"index": 0, "finishReason": finish}
        if parts:
            candidate["content"] = {"role": "model", "parts": parts}
        else:
            candidate["safetyRatings"] = [
                {
                    "category": "HARM_CATEGORY_DANGEROUS_CONTENT",
                    "probability": "HIGH",
                    "blocked": True,
                }
            ]
        return {
            "candidates": [candidate],
            "usageMetadata": {
                "promptTokenCount": prompt,
                "candidatesTokenCount": written,
                "totalTokenCount": prompt + written,
            },
            "modelVersion": request.body.get("model") or "scripted",
            "responseId": f"resp-{number}",
        }

    def events(self, reply: Answer, request: ChatRequest, number: int) -> bytes:
        return sse([(None, self.completion(reply, request, number))])

    @staticmethod
    def _parts(reply: Answer, request: ChatRequest) -> tuple[list[dict[str, Any]], str]:
        if isinstance(reply, Blocked):
            return [], "SAFETY"
        if STRUCTURED_TOOL in request.tools:  # CrewAI offered its structured-output function
            reply = structured(reply, STRUCTURED_TOOL)
        if isinstance(reply, ToolCall):
            return [{"functionCall": {"name": reply.name, "args": reply.arguments}}], "STOP"
        return [{"text": reply.content}], "STOP"
