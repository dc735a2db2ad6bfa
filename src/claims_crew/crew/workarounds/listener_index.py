"""CrewAI's flow engine, finding the listeners an event triggers among those that name it only.

No upstream issue; CrewAI behaviour (1.15.x): after every step of an agent executor (a Flow),
`Flow._find_triggered_methods` walks every listener of the flow's definition (31 in
AgentExecutor's) and checks each one's condition against the step just finished
(`_condition_met`, which also notes the step in that listener's pending set). A claim runs
about 190 such steps, so this walk was the largest single cost of CrewAI's flow engine: a
tenth of a claim's profiled CPU (bench/claim_profile.py).

A listener's condition is an event name, or an "and"/"or" of conditions; whether it is met
depends only on which of the names it contains have been seen (`_condition_satisfied`). A step
whose name a condition does not contain therefore cannot meet it, now or later: CrewAI only
adds the name to that listener's pending set, where nothing ever reads it. `TriggerIndexed`
keeps, per flow definition, the listeners that name each event, in the definition's order,
and runs CrewAI's own checks (`_condition_met`, the router filter and the fired-"or" rule) on
those alone: the same listeners are triggered, in the same order, and the pending sets of the
listeners that name the step change as CrewAI changes them. The only difference is the pending
entries CrewAI would have made of steps a listener does not name.

tests/test_crewai_workarounds.py checks that CrewAI still walks every listener, and that this
triggers what CrewAI triggers for every step of the executor's definition, in sequence.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from crewai.flow.flow_definition import FlowDefinition
from crewai.flow.runtime import _is_multi_event_or, _iter_condition_events
from crewai.flow.types import FlowMethodName, PendingListenerKey

# (listener name, its method definition, its condition), as Flow._listener_methods gives them.
Listener = tuple[FlowMethodName, Any, Any]

_indexes: dict[int, tuple[FlowDefinition, dict[str, tuple[Listener, ...]]]] = {}
_indexing = threading.Lock()


def _index(
    definition: FlowDefinition, listeners: Iterator[Listener]
) -> dict[str, tuple[Listener, ...]]:
    """Each event name → the listeners whose condition names it, in the definition's order.
    Kept per definition object (with it, so its id is never reused): a flow class's definition
    is built once and shared by its instances."""
    kept = _indexes.get(id(definition))
    if kept is not None and kept[0] is definition:
        return kept[1]
    naming: dict[str, list[Listener]] = {}
    for listener in listeners:
        for event in dict.fromkeys(_iter_condition_events(listener[2])):
            naming.setdefault(event, []).append(listener)
    index = {event: tuple(found) for event, found in naming.items()}
    with _indexing:
        _indexes[id(definition)] = (definition, index)
    return index


class TriggerIndexed:
    """A Flow mixin: `_find_triggered_methods` over the listeners naming the trigger only."""

    if TYPE_CHECKING:  # the Flow's, which this mixin comes before; not defined here
        _definition: FlowDefinition
        _fired_or_listeners: set[FlowMethodName]

        def _listener_methods(self) -> Iterator[Listener]: ...

        def _condition_met(self, condition: Any, trigger: FlowMethodName, key: Any) -> bool: ...

    def _find_triggered_methods(
        self, trigger_method: FlowMethodName, router_only: bool
    ) -> list[FlowMethodName]:
        index = _index(self._definition, self._listener_methods())
        triggered: list[FlowMethodName] = []
        for name, method, condition in index.get(str(trigger_method), ()):
            if router_only != method.router:
                continue
            # An "or" of several events fires once until re-armed (CrewAI's rule, kept).
            once = _is_multi_event_or(condition) and not method.router
            if once and name in self._fired_or_listeners:
                continue
            if self._condition_met(condition, trigger_method, PendingListenerKey(str(name))):
                triggered.append(name)
                if once:
                    self._fired_or_listeners.add(name)
        return triggered
