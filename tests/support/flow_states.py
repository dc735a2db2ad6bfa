"""Counting the Flow state classes CrewAI declares, for the agent executor's tests."""

from __future__ import annotations

import gc
from collections.abc import Callable

from crewai.flow.flow import FlowState


def declared_states(build: Callable[[], object]) -> int:
    """How many Flow state classes building something declares."""
    gc.disable()  # a class made and dropped stays listed until a collection
    try:
        before = len(FlowState.__subclasses__())
        build()
        return len(FlowState.__subclasses__()) - before
    finally:
        gc.enable()
