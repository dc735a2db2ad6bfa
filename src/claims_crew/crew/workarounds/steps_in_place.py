"""CrewAI's flow engine, running an agent executor's steps on the thread that runs its flow.

No upstream issue; CrewAI behaviour (1.15.x): an agent executor is a Flow, and
`AgentExecutor.invoke` runs it in an event loop of its own (`Flow.kickoff`, `asyncio.run`). The
engine hands each step that is a plain function to a thread of that loop's pool
(`asyncio.to_thread` in `Flow._execute_method`), "for isolation", so that a step may call
`Agent.kickoff()` or `asyncio.run()` itself, which a running loop would refuse. The loop waits
while the step runs: nothing else is on it. A claim runs about 170 such steps, and each
hand-over (the pool's queue, a thread woken, the result passed back through the loop's
self-pipe) is CPU spent under the interpreter lock: together about a twelfth of a claim's
(docs/benchmarks.md, "What CrewAI itself costs a claim").

`StepsInPlace` gives the engine each plain step wrapped as a coroutine function, which the engine
awaits in place rather than handing over. The wrapper gives the step what the pool's thread
gave it: a copy of the context (as `_execute_method` makes for the pool), no running loop and no
current loop (so `asyncio.run()` inside a step works, and `asyncio.get_event_loop()` refuses, as
in a pool thread). After the step, the flow's loop is running and current again, as
`asyncio.run` left it. The step's result, exceptions and signature (which the engine reads to
pass the trigger's result) are its own. What still differs: a step that blocks a loop other
coroutines need. The executor's loop has none; its event handlers run on the event bus's
threads. Flows other than the claims crew's executors are unchanged.

tests/test_crewai_workarounds.py checks that CrewAI still hands plain steps to a thread, and that
a step run in place may start an event loop of its own.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from typing import Any

from crewai.flow.types import FlowMethodName


def in_place(step: Callable[..., Any]) -> Callable[..., Any]:
    """`step` as a coroutine function that runs it on the calling thread, as a pool thread
    would have: in a copy of the context, with no running or current event loop."""
    if asyncio.iscoroutinefunction(step):
        return step

    @functools.wraps(step)
    async def run(*args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        try:
            return context.run(step, *args, **kwargs)
        finally:
            asyncio.set_event_loop(loop)
            asyncio.events._set_running_loop(loop)

    return run


class StepsInPlace:
    """A Flow mixin: its plain steps are awaited in place (in_place), not handed to a thread."""

    def _class_bound_methods(self) -> dict[FlowMethodName, Callable[..., Any]]:
        steps = super()._class_bound_methods()  # type: ignore[misc]  # the Flow's, after this
        return {name: in_place(step) for name, step in steps.items()}
