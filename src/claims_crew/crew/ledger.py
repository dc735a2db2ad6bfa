"""The tool ledger: which clauses policy_lookup really returned, to which agent, in which task.

It is filled from CrewAI's ToolUsageFinishedEvent, not from anything an agent writes, so an agent
that claims it checked a clause without calling the tool is caught.

It also counts each task's model calls and tokens from LLMCallCompletedEvent, and the calls that
failed from LLMCallFailedEvent: the provider received those too. Every event names the task that
made the call, so tasks running at the same time are each charged their own calls, whatever order
the calls end in; the usage each provider reports (OpenAI's prompt_tokens, Anthropic's
input_tokens, ...) is read through CrewAI's own UsageMetrics. A call is counted once by its
call id: CrewAI's providers emit a failed call's event twice (once where the request failed,
once in `call`). A request the provider's client retried by itself (a 5xx, a 429, a timeout)
is one call here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from crewai.events import crewai_event_bus
from crewai.events.types.llm_events import LLMCallCompletedEvent, LLMCallFailedEvent
from crewai.events.types.tool_usage_events import ToolUsageFinishedEvent
from crewai.types.usage_metrics import UsageMetrics

from claims_crew.models import Claim, LedgerEntry
from claims_crew.policy.ids import clause_key
from claims_crew.records import TaskUsage
from claims_crew.tools.policy_lookup import PolicyLookupTool, clause_ids_in

LOOKUP_TOOL = PolicyLookupTool.model_fields["name"].default


class ToolLedger:
    """Tool calls of one crew run, kept only for the tasks it was told to watch."""

    def __init__(self, task_ids: set[str], on_tokens: Callable[[int], None] | None = None) -> None:
        self._task_ids = frozenset(task_ids)
        # Told each finished call's tokens as counted here: the run's tokens-per-minute cap.
        self._on_tokens = on_tokens
        self._entries: list[LedgerEntry] = []
        self._usage: dict[str, TaskUsage] = {}
        self._calls: set[str] = set()  # the call ids counted
        self._lock = threading.Lock()

    def record(self, _source: Any, event: ToolUsageFinishedEvent) -> None:
        if event.task_id not in self._task_ids:
            return  # another claim's crew, running beside this one
        output = str(event.output) if event.output is not None else ""
        entry = LedgerEntry(
            task_id=event.task_id,
            task_name=event.task_name,
            agent_role=event.agent_role,
            tool=event.tool_name,
            args=event.tool_args,
            returned_clause_ids=clause_ids_in(output) if event.tool_name == LOOKUP_TOOL else [],
        )
        with self._lock:
            self._entries.append(entry)

    def count_call(self, _source: Any, event: LLMCallCompletedEvent | LLMCallFailedEvent) -> None:
        if event.task_id not in self._task_ids:
            return
        usage = event.usage if isinstance(event, LLMCallCompletedEvent) else None
        metrics = UsageMetrics.from_provider_dict(usage)  # None: nothing reported
        with self._lock:
            used = self._usage.setdefault(event.task_name or "", TaskUsage())
            if event.call_id not in self._calls:
                self._calls.add(event.call_id)
                used.calls += 1
            if metrics is not None:
                used.prompt += metrics.prompt_tokens
                used.completion += metrics.completion_tokens
        if metrics is not None and self._on_tokens is not None:
            self._on_tokens(metrics.prompt_tokens + metrics.completion_tokens)

    @property
    def usage(self) -> dict[str, TaskUsage]:
        """Task name → its model calls and prompt and completion tokens (CrewAI's events)."""
        with self._lock:
            return {task: used.model_copy() for task, used in self._usage.items()}

    @property
    def model_calls(self) -> dict[str, int]:
        """Task name → model calls made in it (from CrewAI's events, not the model's say)."""
        return {task: used.calls for task, used in self.usage.items()}

    @property
    def tokens(self) -> dict[str, int]:
        """Task name → prompt plus completion tokens, as the model reported them."""
        return {task: used.total for task, used in self.usage.items()}

    @property
    def entries(self) -> list[LedgerEntry]:
        with self._lock:
            return list(self._entries)

    def settle(self) -> None:
        """Wait for the event bus to hand over what it still holds (tool calls made since the
        last read), before the ledger is read again."""
        crewai_event_bus.flush()

    def returned_to(self, task_id: str) -> set[str]:
        """Clause ids policy_lookup returned within one task."""
        return {cid for e in self.entries if e.task_id == task_id for cid in e.returned_clause_ids}

    @contextmanager
    def listening(self) -> Iterator[ToolLedger]:
        """Collect events while the block runs; flush the bus before the caller reads."""
        crewai_event_bus.on(ToolUsageFinishedEvent)(self.record)
        crewai_event_bus.on(LLMCallCompletedEvent)(self.count_call)
        crewai_event_bus.on(LLMCallFailedEvent)(self.count_call)
        try:
            yield self
        finally:
            crewai_event_bus.flush()
            crewai_event_bus.off(ToolUsageFinishedEvent, self.record)
            crewai_event_bus.off(LLMCallCompletedEvent, self.count_call)
            crewai_event_bus.off(LLMCallFailedEvent, self.count_call)


def source_checked(claim: Claim, returned: set[str]) -> bool:
    """True when the claim cites clauses and the tool returned every one of them in its task.

    Ids are compared by their normalised key, so citing "4.2 (b)" for a returned "4.2(b)" counts.
    """
    if not claim.evidence:
        return False
    returned_keys = {clause_key(cid) for cid in returned}
    return all(clause_key(e.clause_id) in returned_keys for e in claim.evidence)
