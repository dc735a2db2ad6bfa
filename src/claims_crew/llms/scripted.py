"""A model that answers from a script: for tests and benchmarks of the real CrewAI machinery.

Everything else runs for real (agents, tools, events, parsing); only the model's words are
queued in advance, and every call is recorded so a test can read the exact prompt.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import PrivateAttr

from claims_crew.llms.base import InProcessLLM, Messages, Reply, Request, as_messages

Answer = str | Callable[[Messages], str]


class ScriptedLLM(InProcessLLM):
    """Replies with queued answers, in order; an answer may be a function of the messages."""

    latency_s: float = 0.0
    responder: Callable[[Messages], str] | None = None
    _queue: deque[Answer] = PrivateAttr(default_factory=deque)
    _calls: list[Messages] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, answers: Iterable[Answer] = (), **data: Any) -> None:
        data.setdefault("model", "scripted")
        super().__init__(**data)
        self._queue.extend(answers)

    def enqueue(self, *answers: Answer) -> None:
        with self._lock:
            self._queue.extend(answers)

    @property
    def calls(self) -> list[Messages]:
        with self._lock:
            return list(self._calls)

    def reply(self, request: Request) -> Reply:
        messages = request.messages
        with self._lock:
            self._calls.append(list(messages))
            if self._queue:
                answer: Answer = self._queue.popleft()
            elif self.responder is not None:
                answer = self.responder  # answers as long as it is asked
            else:
                raise RuntimeError(f"{self.model}: no scripted answer left for this call")
        if self.latency_s:
            time.sleep(self.latency_s)
        text = answer(messages) if callable(answer) else answer
        return Reply(text, {"prompt_tokens": _words(messages), "completion_tokens": _words(text)})

    def get_input_tokens_count(
        self, messages: Any, tools: Any = None, response_model: Any = None
    ) -> int:
        """Words, as counted for each reply."""
        return _words(as_messages(messages))

    def get_context_window_size(self) -> int:
        return 32_768


def _words(text: str | Messages) -> int:
    """Whitespace-split words stand in for tokens: there is no tokenizer to ask."""
    if isinstance(text, str):
        return len(text.split())
    return sum(len(str(m.get("content", "")).split()) for m in text)


def lookup(policy_id: str, clause_id: str) -> str:
    """A scripted tool call: the agent asks policy_lookup for one clause."""
    args = json.dumps({"policy_id": policy_id, "clause_id": clause_id})
    return f"Thought: I should read the clause.\nAction: policy_lookup\nAction Input: {args}"


def final(payload: object) -> str:
    """A scripted final answer; a dict is sent as JSON, anything else as written."""
    body = json.dumps(payload) if isinstance(payload, dict) else str(payload)
    return f"Thought: I have what I need.\nFinal Answer: {body}"
