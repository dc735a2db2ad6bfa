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

- `Blocked()`: the provider's safety filter withheld the answer (OpenAI's `content_filter`).

Streaming requests (`stream: true`) get the same answer as server-sent events. `latency_s`
delays every answer, for benches. `exchanges` is the server's own log: when each request
arrived and when its answer had been sent, so a test can see which calls overlapped. The server
runs on daemon threads and stops by itself when its `with` block ends (the pytest fixture
`openai_server` in conftest.py does that).

The wire format is one object (`Wire`): OpenAI's is here; Anthropic's and Gemini's
(anthropic_wire.py, gemini_wire.py) translate their requests into the same `ChatRequest`, so one
script answers a crew on any of them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol


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


@dataclass(frozen=True)
class Blocked:
    """A 200 whose answer the provider's safety filter withheld."""


Reply = Text | ToolCall | Status | Hang | BadJSON | Truncated | Blocked


@dataclass(frozen=True)
class ChatRequest:
    """One request as OpenAI's chat-completions body (`body`); on another wire, `raw` is what
    the client really sent and `body` its translation."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float  # time.monotonic() when it arrived
    raw: dict[str, Any] = field(default_factory=dict)

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
Answer = Text | ToolCall | Blocked  # a 200 the wire writes in its own format


class Wire(Protocol):
    """One provider's HTTP format: where its requests go and how its answers are written."""

    def base_url(self, host: str, port: int) -> str: ...

    def routes(self, path: str) -> bool:
        """Whether `path` is a model call of this wire."""

    def fixed(self, path: str, chat: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to a request that is not a model call (token counts), or None."""

    def as_chat(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """The request as an OpenAI chat-completions body."""

    def streams(self, path: str, body: dict[str, Any]) -> bool: ...

    def completion(self, reply: Answer, request: ChatRequest, number: int) -> dict[str, Any]: ...

    def events(self, reply: Answer, request: ChatRequest, number: int) -> bytes:
        """The same answer as server-sent events."""

    def error(self, status: Status) -> dict[str, Any]: ...


class _Listener(ThreadingHTTPServer):
    daemon_threads = True
    # A batch opens many connections at once; the default backlog of 5 would refuse some.
    request_queue_size = 256


class OpenAIServer:
    """The server: `base_url` to give the client, `requests` it has answered or is holding."""

    def __init__(
        self,
        respond: Respond,
        latency_s: float = 0.0,
        hang_limit_s: float = 60.0,
        wire: Wire | None = None,
    ) -> None:
        self.respond = respond
        self.latency_s = latency_s
        self.hang_limit_s = hang_limit_s
        self.wire: Wire = wire or OpenAIWire()
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._requests: list[ChatRequest] = []
        self._finished: dict[int, float] = {}
        self._http = _Listener(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._http.server_address[:2]
        return self.wire.base_url(str(host), int(port))

    @property
    def requests(self) -> list[ChatRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def calls(self) -> list[ChatRequest]:
        """The model calls among `requests` (not the token counts a client may ask for)."""
        return [r for r in self.requests if self.wire.routes(r.path)]

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
    wire = server.wire

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the tests read `requests`

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, wire.error(Status(400, "request body is not JSON")))
                return
            chat = wire.as_chat(self.path, body) if wire.routes(self.path) else body
            headers = dict(self.headers.items())
            request = ChatRequest(self.path, chat, headers, time.monotonic(), body)
            number = server._received(request)
            if (fixed := wire.fixed(self.path, chat)) is not None:
                self._send(200, fixed)
                server._answered(number)
                return
            if not wire.routes(self.path):
                self._send(404, wire.error(Status(404, f"no route {self.path}")))
                return
            reply = server.respond(request)
            if server.latency_s:
                server.stopping.wait(server.latency_s)
            self._answer(reply, request, number)
            if not isinstance(reply, Hang):
                server._answered(number)

        def _answer(self, reply: Reply, request: ChatRequest, number: int) -> None:
            if isinstance(reply, Hang):
                server.stopping.wait(server.hang_limit_s)
                self.close_connection = True  # dropped without an answer
                return
            if isinstance(reply, Status):
                headers = {}
                if reply.retry_after is not None:
                    headers["Retry-After"] = f"{reply.retry_after:g}"
                self._send(reply.code, wire.error(reply), headers)
                return
            if isinstance(reply, BadJSON):
                self._send_bytes(200, reply.body.encode(), "application/json")
                return
            if isinstance(reply, Truncated):
                whole = json.dumps(wire.completion(Text(reply.content), request, number))
                self._send_bytes(200, _cut(whole, reply.content), "application/json")
                return
            if wire.streams(request.path, request.raw):
                self._send_bytes(200, wire.events(reply, request, number), "text/event-stream")
                return
            self._send(200, wire.completion(reply, request, number))

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


def _cut(whole: str, content: str) -> bytes:
    """`whole` ending halfway through `content`, as it is written inside it."""
    text = json.dumps(content)[1:-1]
    cut = whole.index(text) + max(1, len(text) // 2)
    return whole[:cut].encode()


def usage(request: ChatRequest, written: object) -> tuple[int, int]:
    """Prompt and completion tokens, counted as words: what was sent and what was written."""
    return sum(len(_text(m).split()) for m in request.messages), len(str(written).split())


def structured(reply: Answer, tool: str) -> Answer:
    """An answer in words that is a JSON object, as a call of the client's structured-output
    tool `tool`; prose, or anything else, as it is (the client then finds no such call)."""
    if not isinstance(reply, Text):
        return reply
    try:
        data = json.loads(reply.content)
    except json.JSONDecodeError:
        return reply
    return ToolCall(tool, data) if isinstance(data, dict) else reply


def sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    """Server-sent events: `event:` lines where the wire names them, then `data:`."""
    lines = []
    for name, data in events:
        lines.append((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n")
    return "".join(lines).encode()


class OpenAIWire:
    """`/v1/chat/completions`, as OpenAI and every OpenAI-compatible server speak it."""

    def base_url(self, host: str, port: int) -> str:
        return f"http://{host}:{port}/v1"

    def routes(self, path: str) -> bool:
        return path.rstrip("/").endswith("/chat/completions")

    def fixed(self, path: str, chat: dict[str, Any]) -> dict[str, Any] | None:
        return None

    def as_chat(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return body

    def streams(self, path: str, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def error(self, status: Status) -> dict[str, Any]:
        return {"error": {"message": status.message, "type": "scripted", "code": str(status.code)}}

    def completion(self, reply: Answer, request: ChatRequest, number: int) -> dict[str, Any]:
        message, finish = _message(reply, number)
        prompt, written = usage(request, message.get("content") or message.get("tool_calls"))
        return {
            **self._head(request, number, "chat.completion"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": written,
                "total_tokens": prompt + written,
            },
        }

    def events(self, reply: Answer, request: ChatRequest, number: int) -> bytes:
        message, finish = _message(reply, number)
        delta = {k: v for k, v in message.items() if v is not None}
        if "tool_calls" in delta:
            delta["tool_calls"] = [{"index": 0, **delta["tool_calls"][0]}]
        head = self._head(request, number, "chat.completion.chunk")
        chunks = [(delta, None), ({}, finish)]
        data = [
            {**head, "choices": [{"index": 0, "delta": d, "finish_reason": f}]} for d, f in chunks
        ]
        return sse([(None, d) for d in data]) + b"data: [DONE]\n\n"

    @staticmethod
    def _head(request: ChatRequest, number: int, kind: str) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{number}",
            "object": kind,
            "created": int(time.time()),
            "model": str(request.body.get("model", "scripted")),
        }


def _message(reply: Answer, number: int) -> tuple[dict[str, Any], str]:
    if isinstance(reply, Blocked):
        return {"role": "assistant", "content": None}, "content_filter"
    if isinstance(reply, ToolCall):
        call = {
            "id": f"call_{number}",
            "type": "function",
            "function": {"name": reply.name, "arguments": json.dumps(reply.arguments)},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    return {"role": "assistant", "content": reply.content}, "stop"


# The `openai_server` fixture (conftest.py): `openai_server(respond, latency_s=..., ...)`.
StartServer = Callable[..., OpenAIServer]
