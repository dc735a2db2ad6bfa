"""Refusing a claim's model calls once the claim has been given up on.

A model call blocked on a silent provider cannot be interrupted from outside its thread, so a
claim past its deadline is abandoned where it stands (deadline.py). Left alone, its crew would
go on when that call returns: more model calls, paid for, for a result nobody reads. CrewAI
asks the hooks of the current execution scope before every model call, whatever the model; a
hook scoped to this claim's thread aborts the call once `stop` is set. CrewAI passes that
abort through, never into its task retries, so the crew ends at its next model call.

The run's rate limit (rate_limit.py) is waited for at the wire where the client allows it
(wire_gate.py: every request the SDK sends, its retries included; OpenAI, Anthropic, Gemini,
Ollama, vLLM), and by the same hook before
each call where it does not: every call of every claim, to whatever model, passes one of the
two. Either waits on `stop`, so a claim given up at its deadline stops waiting and makes no
call.

Last, right before the call, it asks `held` whether the claim's lease is still this process's
(run/routine.py): a process paused past its lease, whose claim another has taken since, makes
no further call for it. `held` answers for itself when the store cannot: CrewAI swallows any
error a hook raises other than HookAborted, and would then make the call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from crewai.events import crewai_event_bus
from crewai.hooks.dispatch import HookAborted, InterceptionPoint, register_scoped, scoped_hooks

from claims_crew.llms.rate_limit import RateLimit
from claims_crew.llms.wire_gate import gated, wire_gated


@contextmanager
def model_calls_until(
    stop: threading.Event,
    rate_limit: RateLimit | None = None,
    held: Callable[[], bool] | None = None,
) -> Iterator[None]:
    """Within this block (this thread and what CrewAI starts from it), refuse every model call
    once `stop` is set, hold each one until `rate_limit` lets it through, and refuse it when
    `held` says the claim's lease is no longer this process's."""

    def before_each_call(context: Any) -> None:
        if stop.is_set():
            raise HookAborted("the claim's deadline has passed", source="claim deadline")
        if rate_limit is not None and rate_limit.counts_tokens:
            # The tokens of finished calls are counted by event handlers, which may still be
            # running: counted first, so that the cap sees them before this call asks.
            crewai_event_bus.flush()
        at_the_wire = wire_gated(getattr(context, "llm", None))
        if rate_limit is not None and not at_the_wire and not rate_limit.acquire(stop):
            raise HookAborted(
                f"the claim's deadline passed while waiting on the rate limit ({rate_limit.label})",
                source="claim deadline",
            )
        if held is not None and not held():
            raise HookAborted("the claim's lease passed to another holder", source="claim lease")

    with scoped_hooks(), gated(stop, rate_limit):
        register_scoped(InterceptionPoint.PRE_MODEL_CALL, before_each_call)
        yield
