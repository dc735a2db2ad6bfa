"""Make a custom model announce its calls on CrewAI's event bus, as the built-in providers do.

CrewAI's own providers emit LLMCallStarted/Completed events; a BaseLLM subclass does not unless
it asks. The pipeline counts model calls and tokens per task from these events, so the local
and scripted models must emit them too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crewai import BaseLLM
from crewai.events.types.llm_events import LLMCallType
from crewai.llms.base_llm import llm_call_context

Usage = dict[str, int]


def as_messages(messages: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """CrewAI may pass a bare prompt string; every custom model reads a list of messages."""
    return [{"role": "user", "content": messages}] if isinstance(messages, str) else messages


def reported_call(
    llm: BaseLLM,
    messages: Any,
    from_task: Any,
    from_agent: Any,
    answer: Callable[[], tuple[str, Usage]],
) -> str:
    """Run `answer()` between a started and a completed (or failed) event."""
    with llm_call_context():
        llm._emit_call_started_event(messages=messages, from_task=from_task, from_agent=from_agent)
        try:
            text, usage = answer()
        except Exception as exc:
            llm._emit_call_failed_event(error=str(exc), from_task=from_task, from_agent=from_agent)
            raise
        llm._emit_call_completed_event(
            response=text,
            call_type=LLMCallType.LLM_CALL,
            from_task=from_task,
            from_agent=from_agent,
            messages=messages,
            usage=usage,
        )
    return text
