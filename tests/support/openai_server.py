"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benches.

The provider path users really run is CrewAI's own OpenAI client talking HTTP to an endpoint
(`MODEL=openai/gpt-4o-mini MODEL_BASE_URL=http://127.0.0.1:PORT/v1`). This server is that
endpoint with the model scripted: every `POST /v1/chat/completions` is recorded and answered
by a `respond(request)` function, so the client's retries, timeouts, native tool calls and
parsing all run for real. It uses only the standard library and binds to 127.0.0.1.

What `respond` returns decides the answer (the fault modes among them):

- `Text(content)`: an ordinary answer. Prose where JSON is expected is just `Text("prose")`.
- `ToolCall(name, arguments)`: a native tool call (`finish_reason: tool_calls`); a name the
  agent has no tool for is the unknown-tool fault.
- `Status(code, retry_after=...)`: an HTTP error with an OpenAI-style error body, e.g.
  `Status(500)`, or `Status(429, retry_after=1)` which sends `Retry-After`.
- `Hang()`: the call never returns. The connection is held open until the server stops (at
  the latest after `hang_limit_s`), then dropped without an answer.
- `BadJSON()`: status 200 and a body that is not JSON.
- `Truncated(content)`: status 200 and the completion `Text(content)` would get, cut off in the
  middle of the answer's text (an unterminated string), as a provider or proxy that drops the
  end of a body sends it. The body is whole as HTTP: its length is the cut length.

Streaming requests (`stream: true`) get the same answer as server-sent events. `latency_s`
delays every answer, for benches. `exchanges` is the server's own log: when each request
arrived and when its answer had been sent, so a test can see which calls overlapped. The server
runs on daemon threads and stops by itself when its `with` block ends (the pytest fixture
`openai_server` in conftest.py does that).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Text:
    """An answer in words: the assistant message's content."""

    content: str


@dataclass(frozen=True)
class ToolCall:
    """A native tool call, as OpenAI returns it: a function name and JSON arguments."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Status:
    """An HTTP error; 429 and 5xx are what clients retry."""

    code: int
    message: str = "scripted failure"
    retry_after: float | None = None


@dataclass(frozen=True)
class Hang:
    """No answer at all: the request is held until the server stops."""


@dataclass(frozen=True)
class BadJSON:
    """Status 200 with a body that does not parse."""

    body: str = '{"id": "chatcmpl-broken", "choices": [ {'


@dataclass(frozen=True)
class Truncated:
    """Status 200 and a real completion of `content`, cut off in the middle of `content`."""

    content: str


Reply = Text | ToolCall | Status | Hang | BadJSON | Truncated


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completions request as the client sent it."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float  # time.monotonic() when it arrived

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def tools(self) -> list[str]:
        """The names of the tools the client offered."""
        return [t["function"]["name"] for t in self.body.get("tools") or [] if "function" in t]

    @property
    def system(self) -> str:
        return "\n".join(_text(m) for m in self.messages if m.get("role") == "system")

    @property
    def text(self) -> str:
        """Every message's words, in order."""
        return "\n".join(_text(m) for m in self.messages)

    @property
    def tool_results(self) -> list[str]:
        """What the client's tools returned, as sent back in `role: tool` messages."""
        return [_text(m) for m in self.messages if m.get("role") == "tool"]


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


@dataclass(frozen=True)
class Exchange:
    """One request and when it ended: its answer sent, or None (held, dropped, or still open)."""

    request: ChatRequest
    finished: float | None  # time.monotonic(), like ChatRequest.at

    @property
    def arrived(self) -> float:
        return self.request.at

    def overlaps(self, other: Exchange) -> bool:
        """Both were open at once: each arrived before the other had been answered."""
        if self.finished is None or other.finished is None:
            return False
        return self.arrived < other.finished and other.arrived < self.finished


Respond = Callable[[ChatRequest], Reply]


class _Listener(ThreadingHTTPServer):
    daemon_threads = True
    # A batch opens many connections at once; the default backlog of 5 would refuse some.
    request_queue_size = 256


class OpenAIServer:
    """The server: `base_url` to give the client, `requests` it has answered or is holding."""

    def __init__(
        self, respond: Respond, latency_s: float = 0.0, hang_limit_s: float = 60.0
    ) -> None:
        self.respond = respond
        self.latency_s = latency_s
        self.hang_limit_s = hang_limit_s
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._requests: list[ChatRequest] = []
        self._finished: dict[int, float] = {}
        self._http = _Listener(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def requests(self) -> list[ChatRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def exchanges(self) -> list[Exchange]:
        """Every request in the order it arrived, with when its answer had been sent."""
        with self._lock:
            return [
                Exchange(request, self._finished.get(number))
                for number, request in enumerate(self._requests, start=1)
            ]

    def start(self) -> OpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release held calls and stop answering; idempotent."""
        self.stopping.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _received(self, request: ChatRequest) -> int:
        with self._lock:
            self._requests.append(request)
            return len(self._requests)

    def _answered(self, number: int) -> None:
        with self._lock:
            self._finished[number] = time.monotonic()


def _handler_for(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the tests read `requests`

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "request body is not JSON"}})
                return
            request = ChatRequest(self.path, body, dict(self.headers.items()), time.monotonic())
            number = server._received(request)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            reply = server.respond(request)
            if server.latency_s:
                server.stopping.wait(server.latency_s)
            self._answer(reply, body, number)
            if not isinstance(reply, Hang):
                server._answered(number)

        def _answer(self, reply: Reply, body: dict[str, Any], number: int) -> None:
            if isinstance(reply, Hang):
                server.stopping.wait(server.hang_limit_s)
                self.close_connection = True  # dropped without an answer
                return
            if isinstance(reply, Status):
                headers = {}
                if reply.retry_after is not None:
                    headers["Retry-After"] = f"{reply.retry_after:g}"
                error = {"message": reply.message, "type": "scripted", "code": str(reply.code)}
                self._send(reply.code, {"error": error}, headers)
                return
            if isinstance(reply, BadJSON):
                self._send_bytes(200, reply.body.encode(), "application/json")
                return
            if isinstance(reply, Truncated):
                self._send_bytes(200, _truncated(reply, body, number), "application/json")
                return
            message, finish = _message(reply, number)
            model = str(body.get("model", "scripted"))
            if body.get("stream"):
                self._stream(message, finish, model, number)
                return
            self._send(200, _completion(message, finish, model, number, body))

        def _stream(self, message: dict[str, Any], finish: str, model: str, number: int) -> None:
            def chunk(delta: dict[str, Any], reason: str | None) -> bytes:
                data = {
                    "id": f"chatcmpl-{number}",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
                }
                return f"data: {json.dumps(data)}\n\n".encode()

            delta = {k: v for k, v in message.items() if v is not None}
            if "tool_calls" in delta:
                delta["tool_calls"] = [{"index": 0, **delta["tool_calls"][0]}]
            payload = chunk(delta, None) + chunk({}, finish) + b"data: [DONE]\n\n"
            self._send_bytes(200, payload, "text/event-stream")

        def _send(
            self, code: int, data: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            self._send_bytes(code, json.dumps(data).encode(), "application/json", headers)

        def _send_bytes(
            self, code: int, data: bytes, kind: str, headers: dict[str, str] | None = None
        ) -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its own timeout): nothing to answer

    return Handler


def _message(reply: Text | ToolCall, number: int) -> tuple[dict[str, Any], str]:
    if isinstance(reply, ToolCall):
        call = {
            "id": f"call_{number}",
            "type": "function",
            "function": {"name": reply.name, "arguments": json.dumps(reply.arguments)},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    return {"role": "assistant", "content": reply.content}, "stop"


def _truncated(reply: Truncated, body: dict[str, Any], number: int) -> bytes:
    """The completion of `reply.content`, ending halfway through that text."""
    message, finish = _message(Text(reply.content), number)
    whole = json.dumps(
        _completion(message, finish, str(body.get("model", "scripted")), number, body)
    )
    text = json.dumps(reply.content)[1:-1]  # as it is written inside the body
    cut = whole.index(text) + max(1, len(text) // 2)
    return whole[:cut].encode()


def _completion(
    message: dict[str, Any], finish: str, model: str, number: int, body: dict[str, Any]
) -> dict[str, Any]:
    prompt = sum(len(_text(m).split()) for m in body.get("messages") or [])
    completion = len(str(message.get("content") or message.get("tool_calls")).split())
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


# The `openai_server` fixture (conftest.py): `openai_server(respond, latency_s=..., ...)`.
StartServer = Callable[..., OpenAIServer]
