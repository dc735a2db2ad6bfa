"""The base of the models that answer in this process: local, scripted and the prompt probe.

CrewAI prescribes one `call` for every model. Its own providers announce each call on the event
bus (started, then completed or failed), and the pipeline counts model calls and tokens per task
from those events, so our models must announce theirs the same way. CrewAI may also pass a bare
prompt string where a model reads a list of messages. `InProcessLLM.call` does both, once; each
model only says how it answers one request.

CrewAI's providers also run the hooks before a call made outside an agent's loop (its converter
asks a model directly); an agent's own calls have run them already. Ours do the same, so the
claim's deadline and the run's rate limit (llms/cutoff.py) cover every call of every model.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from crewai import BaseLLM
from crewai.events.types.llm_events import LLMCallType
from crewai.llms.base_llm import llm_call_context
from pydantic import BaseModel, PrivateAttr

if TYPE_CHECKING:
    from crewai.utilities.types import LLMMessage

Messages = list[dict[str, Any]]
Usage = dict[str, int]


def as_messages(messages: str | Messages) -> Messages:
    """CrewAI may pass a bare prompt string; our models read a list of messages."""
    return [{"role": "user", "content": messages}] if isinstance(messages, str) else messages


@dataclass(frozen=True)
class Request:
    """One call as CrewAI makes it, its prompt as a list of messages."""

    messages: Messages
    tools: list[Any] | None = None
    task: Any = None
    agent: Any = None
    response_model: type[BaseModel] | None = None


@dataclass(frozen=True)
class Reply:
    """What the model wrote, and the tokens it counted (empty when it cannot count them)."""

    text: str
    usage: Usage = field(default_factory=dict)


class InProcessLLM(BaseLLM):
    """A model of ours: CrewAI's call, its events and its token counts, around `reply`."""

    # Concurrent claims may share one model; the token counters are updated one call at a time.
    _usage_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

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
        request = Request(as_messages(messages), tools, from_task, from_agent, response_model)
        sent = cast("list[LLMMessage]", request.messages)  # CrewAI's name for these dicts
        self._invoke_before_llm_call_hooks(sent, from_agent)  # a no-op within an agent's loop
        with llm_call_context():
            self._emit_call_started_event(messages=sent, from_task=from_task, from_agent=from_agent)
            try:
                reply = self.reply(request)
            except Exception as exc:
                self._emit_call_failed_event(
                    error=str(exc), from_task=from_task, from_agent=from_agent
                )
                raise
            with self._usage_lock:
                self._track_token_usage_internal(reply.usage)
            self._emit_call_completed_event(
                response=reply.text,
                call_type=LLMCallType.LLM_CALL,
                from_task=from_task,
                from_agent=from_agent,
                messages=sent,
                usage=reply.usage,
            )
        return reply.text

    @abstractmethod
    def reply(self, request: Request) -> Reply:
        """Answer one request."""

    def get_input_tokens_count(
        self, messages: Any, tools: Any = None, response_model: Any = None
    ) -> int:
        """CrewAI's own estimate (four characters a token), without the warning it logs on every
        call: none of these models can count without doing the work."""
        return -(-sum(len(str(m.get("content") or "")) for m in as_messages(messages)) // 4)

    def supports_function_calling(self) -> bool:
        return False  # CrewAI's ReAct text protocol: tools are named in the prompt
