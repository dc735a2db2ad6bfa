"""A stand-in for an agent's model that records what CrewAI sends it, for `claims-crew prompt`.

The prompt CrewAI writes depends on what it asks of the model (native tool calling or the ReAct
text protocol, and the context window), so a probe is built to mirror the real model in both.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from crewai import BaseLLM
from pydantic import BaseModel, PrivateAttr

from claims_crew.llms.base import InProcessLLM, Messages, Reply, Request


@dataclass
class ProbeCall:
    messages: Messages
    tools: list[Any] | None
    response_model: type[BaseModel] | None


class PromptProbe(InProcessLLM):
    """Records every call and ends each task at once with `answer` as its final answer."""

    answer: str
    native_tools: bool = False
    context_window: int = 8192
    _calls: list[ProbeCall] = PrivateAttr(default_factory=list)

    @classmethod
    def mirroring(cls, real: BaseLLM, answer: str) -> PromptProbe:
        return cls(
            model=str(real.model),
            answer=answer,
            native_tools=bool(real.supports_function_calling()),  # type: ignore[attr-defined]
            context_window=real.get_context_window_size(),
        )

    @property
    def calls(self) -> list[ProbeCall]:
        return list(self._calls)

    def reply(self, request: Request) -> Reply:
        # Copied: CrewAI keeps appending to the same list as the conversation goes on.
        self._calls.append(
            ProbeCall(
                [dict(m) for m in request.messages],
                copy.deepcopy(request.tools),
                request.response_model,
            )
        )
        return Reply(f"Thought: I can answer now.\nFinal Answer: {self.answer}")

    def supports_function_calling(self) -> bool:
        return self.native_tools

    def get_context_window_size(self) -> int:
        return self.context_window
