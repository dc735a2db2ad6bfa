"""Refusing a claim's model calls once the claim has been given up on.

A model call blocked on a silent provider cannot be interrupted from outside its thread, so a
claim past its deadline is abandoned where it stands (deadline.py). Left alone, its crew would
go on when that call returns: more model calls, paid for, for a result nobody reads. CrewAI
asks the hooks of the current execution scope before every model call, whatever the model; a
hook scoped to this claim's thread aborts the call once `stop` is set. CrewAI passes that
abort through, never into its task retries, so the crew ends at its next model call.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from crewai.hooks.dispatch import HookAborted, InterceptionPoint, register_scoped, scoped_hooks


@contextmanager
def model_calls_until(stop: threading.Event) -> Iterator[None]:
    """Within this block (this thread and what CrewAI starts from it), refuse every model call
    once `stop` is set."""

    def refuse_when_stopped(_context: Any) -> None:
        if stop.is_set():
            raise HookAborted("the claim's deadline has passed", source="claim deadline")

    with scoped_hooks():
        register_scoped(InterceptionPoint.PRE_MODEL_CALL, refuse_when_stopped)
        yield
