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

from crewai import BaseLLM
from pydantic import PrivateAttr

from claims_crew.llms.base import Usage, as_messages, reported_call

Answer = str | Callable[[list[dict[str, Any]]], str]


class ScriptedLLM(BaseLLM):
    """Replies with queued answers, in order; an answer may be a function of the messages."""

    latency_s: float = 0.0
    responder: Callable[[list[dict[str, Any]]], str] | None = None
    _queue: deque[Answer] = PrivateAttr(default_factory=deque)
    _calls: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, answers: Iterable[Answer] = (), **data: Any) -> None:
        data.setdefault("model", "scripted")
        super().__init__(**data)
        self._queue.extend(answers)

    def enqueue(self, *answers: Answer) -> None:
        with self._lock:
            self._queue.extend(answers)

    @property
    def calls(self) -> list[list[dict[str, Any]]]:
        with self._lock:
            return list(self._calls)

    def call(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> str:
        messages = as_messages(messages)
        return reported_call(self, messages, from_task, from_agent, lambda: self._answer(messages))

    def _answer(self, messages: list[dict[str, Any]]) -> tuple[str, Usage]:
        with self._lock:
            self._calls.append(list(messages))
            if self._queue:
                answer: Answer = self._queue.popleft()
            elif self.responder is not None:
                answer = self.responder  # answers as long as it is asked
            else:
                raise RuntimeError(f"{self.model}: no scripted answer left for this call")
            # Whitespace-split words stand in for tokens: there is no tokenizer to ask.
            words = sum(len(str(m.get("content", "")).split()) for m in messages)
            self._token_usage["prompt_tokens"] += words
            self._token_usage["successful_requests"] += 1
        if self.latency_s:
            time.sleep(self.latency_s)
        text = answer(messages) if callable(answer) else answer
        with self._lock:
            self._token_usage["completion_tokens"] += len(text.split())
        return text, {"prompt_tokens": words, "completion_tokens": len(text.split())}

    def get_input_tokens_count(
        self, messages: Any, tools: Any = None, response_model: Any = None
    ) -> int:
        """Whitespace-split words, as counted in `call`: there is no tokenizer to ask."""
        return sum(len(str(m.get("content", "")).split()) for m in as_messages(messages))

    def supports_function_calling(self) -> bool:
        return False  # the ReAct text protocol, the same one the local model speaks

    def get_context_window_size(self) -> int:
        return 32_768


def lookup(policy_id: str, clause_id: str) -> str:
    """A scripted tool call: the agent asks policy_lookup for one clause."""
    args = json.dumps({"policy_id": policy_id, "clause_id": clause_id})
    return f"Thought: I should read the clause.\nAction: policy_lookup\nAction Input: {args}"


def final(payload: object) -> str:
    """A scripted final answer; a dict is sent as JSON, anything else as written."""
    body = json.dumps(payload) if isinstance(payload, dict) else str(payload)
    return f"Thought: I have what I need.\nFinal Answer: {body}"
