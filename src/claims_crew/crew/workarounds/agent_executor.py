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
"""

from __future__ import annotations

from crewai.agents.agent_executor import AgentExecutor, AgentExecutorState
from crewai.flow.flow_definition import FlowDefinition


class ClaimsAgentExecutor(AgentExecutor):
    """AgentExecutor whose initial Flow state is the AgentExecutorState it ends up with anyway."""

    @classmethod
    def flow_definition(cls) -> FlowDefinition:
        return AgentExecutor.flow_definition()

    def _create_initial_state(self) -> AgentExecutorState:
        return AgentExecutorState()
