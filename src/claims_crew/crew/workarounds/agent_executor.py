"""CrewAI's AgentExecutor, without the state class it builds and throws away at construction.

No upstream issue; CrewAI behaviour (1.15.x): building an AgentExecutor declares a pydantic
class. This overrides AgentExecutor's private `_create_initial_state`.

CrewAI 1.15's AgentExecutor is a Flow typed `Flow[AgentExecutorState]`. Building one runs the
Flow's initialisation first, which finds no initial state and so declares a new pydantic class
(`StateWithId`, AgentExecutorState with the Flow's `id`) and makes an instance of it; the
executor's own validator then replaces that instance with a plain `AgentExecutorState()`.
Declaring a pydantic class costs about 4 ms of CPU under the GIL, and a claim builds three
executors, one per agent it runs, so a tenth of a claim's own work went into a class that
nothing ever read.

`ClaimsAgentExecutor` changes that one step: the state made during initialisation is a plain
`AgentExecutorState()`, the object the executor's validator puts in its place a moment later.
Everything the executor does after construction is CrewAI's, unchanged.

A Flow subclass normally gets a flow definition of its own, built from the flow methods in its
own class body only; this one has none, so it runs AgentExecutor's definition, the very object
AgentExecutor runs (same name, same methods and routes). What differs is only what names the
class itself: the flow name CrewAI's tracing records when an executor runs outside any flow,
and `executor_class` in an Agent dumped to JSON (which CrewAI could not load back by that name;
nothing here loads agents back: a claim is run again from its file).

CrewAI builds a Flow class's definition the first time one of its instances is made, and keeps
it on the class: a thread that builds it reads the class's attributes while another thread, done
first, adds the finished definition to them ("dictionary changed size during iteration"). The
first claims of a process reviewed side by side failed so. The definition is built under a lock
here: once, by whichever thread is first.

Building an executor binds each of its 32 flow methods to it, and each binding
(`FlowMethod.__get__`) computes its method's signature with `inspect.signature`, the same
signature for every executor: 1.4% of a claim's profiled CPU. Each method's signature is
computed once, the first time the flow definition is asked for, and kept on its function as
`__signature__`, where `inspect.signature` finds it first; the value is the one it would compute.

Its flow engine finds the listeners a step triggers among those naming the step only
(listener_index.py, `TriggerIndexed`), and runs each plain step on the thread that runs the
executor's flow rather than handing it to another (steps_in_place.py, `StepsInPlace`).

It also hands the provider's client `verbatim(schema)` wherever CrewAI hands it the task's
output schema (verbatim_answers.py), so a native structured answer is kept as the provider sent
it and validated by the pipeline, never lost in the client.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

from crewai.agents.agent_executor import AgentExecutor, AgentExecutorState
from crewai.flow.flow_definition import FlowDefinition
from pydantic import BaseModel, field_validator

from claims_crew.crew.workarounds.listener_index import TriggerIndexed
from claims_crew.crew.workarounds.steps_in_place import StepsInPlace
from claims_crew.crew.workarounds.verbatim_answers import verbatim

_building_definition = threading.Lock()
_signatures_kept = threading.Event()  # set once keep_signatures has run


def keep_signatures(definition: FlowDefinition) -> None:
    """Each of AgentExecutor's flow methods' signature, kept on its function."""
    for name in definition.methods:
        method = getattr(getattr(AgentExecutor, name), "_meth", None)
        if callable(method) and "__signature__" not in getattr(method, "__dict__", {}):
            method.__signature__ = inspect.signature(method)


def _kept(schema: Any) -> Any:
    return (
        verbatim(schema) if isinstance(schema, type) and issubclass(schema, BaseModel) else schema
    )


class ClaimsAgentExecutor(StepsInPlace, TriggerIndexed, AgentExecutor):
    """AgentExecutor whose initial Flow state is the AgentExecutorState it ends up with anyway,
    whose structured answers are kept verbatim, whose steps trigger their listeners through an
    index (listener_index.py) and run on the flow's own thread (steps_in_place.py)."""

    # CrewAI passes the task's schema when it builds the executor and sets it again for each
    # task (Agent._update_executor_parameters); pydantic validates only the first, so the
    # second is caught where it is set.
    @field_validator("response_model")
    @classmethod
    def _verbatim_answers(cls, schema: Any) -> Any:
        return _kept(schema)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, _kept(value) if name == "response_model" else value)

    @classmethod
    def flow_definition(cls) -> FlowDefinition:
        with _building_definition:  # built on first use, not thread-safe (docstring)
            definition = AgentExecutor.flow_definition()
            if not _signatures_kept.is_set():
                keep_signatures(definition)
                _signatures_kept.set()
            return definition

    def _create_initial_state(self) -> AgentExecutorState:
        return AgentExecutorState()
