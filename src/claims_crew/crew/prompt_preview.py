"""`claims-crew prompt`: the exact messages an agent would get for one claim, with no model call.

The text is CrewAI's own, not a re-implementation of it: the real ClaimsCrew is built with the
models a run would use, then each agent's model is swapped for a probe that records what it is
sent and answers at once. The probe mirrors what CrewAI asks of the real model (native tool
calling or the ReAct text protocol, context window), because the prompt CrewAI writes depends on
it. The tasks before TASK run on the probe too, so the context a task receives is assembled by
CrewAI exactly as in a run; only its content is filled in from the claim's stored result.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from crewai import Agent, BaseLLM, Crew, Process, Task

from claims_crew import settings
from claims_crew.claim_files import load_claim
from claims_crew.crew.crew import ClaimsCrew
from claims_crew.crew.inputs import kickoff_inputs
from claims_crew.errors import ClaimsCrewError, ModelError
from claims_crew.llms.probe import PromptProbe
from claims_crew.llms.select import LLMFactory, default_llm_factory
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver.config import load_config
from claims_crew.settings.yaml_files import read_document
from claims_crew.vocabulary import REBUTTAL_TASK_OF, TARGETED_TASK

PLACEHOLDER_INTAKE = (
    "<<placeholder: claim {claim_id} has no stored intake result yet; in a run, the intake "
    "agent's answer is inserted here>>"
)
PLACEHOLDER_DISPUTE = (
    "<<placeholder: the policy and fraud reviewers' claims are inserted here when the "
    "adjudicator is asked>>"
)
PLACEHOLDER_QUESTION = (
    "<<placeholder: the question naming the facts a conflict turns on is inserted here when "
    "intake is asked about them>>"
)
PLACEHOLDER_OTHER_CLAIM = (
    "<<placeholder: the other reviewer's claim is inserted here in a debate round>>"
)
# What every agent other than TASK's answers; it ends each task so the crew moves on.
STAND_IN_ANSWER = "<<not run: prompt preview>>"

ContextSource = Literal["stored", "placeholder", "none"]


@dataclass(frozen=True)
class RenderedPrompt:
    """What TASK's agent would be sent first, and what it is offered and asked to return."""

    task: str
    agent: str
    model: str
    native_tool_calling: bool
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    output_schema: dict[str, Any] | None
    context: ContextSource
    inputs: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _tool_listing(agent: Agent) -> list[dict[str, Any]]:
    executor = agent.agent_executor
    offered = executor.original_tools if executor is not None else agent.tools
    listing = []
    for tool in offered or []:
        schema = tool.args_schema.model_json_schema() if tool.args_schema else {}
        listing.append({"name": tool.name, "description": tool.description, "args": schema})
    return listing


def render_prompt(
    task_name: str,
    claim_path: Path,
    config_dir: Path | None = None,
    library: PolicyLibrary | None = None,
    llm_for: LLMFactory | None = None,
    stored_intake: str | None = None,
) -> RenderedPrompt:
    """Run the crew up to TASK on probes and return the first messages TASK's agent is sent.
    `stored_intake` is the intake agent's answer from the claim's stored run, if it has one:
    later tasks see it as their context, else a placeholder."""
    folder = config_dir if config_dir is not None else settings.config_dir()
    loaded = load_claim(claim_path)
    claim = loaded.claim
    library = library if library is not None else PolicyLibrary()
    if claim.policy_id not in library.entries:
        raise ClaimsCrewError(f"policy {claim.policy_id!r} is not in policies/index.yaml")
    task_config = read_document(folder / "tasks.yaml").data
    agent_name = str(task_config[task_name]["agent"])

    intake = stored_intake
    context: ContextSource = "none"
    if task_name != "intake_task" and "intake_task" in (
        task_config[task_name].get("context") or []
    ):
        context = "stored" if intake is not None else "placeholder"
    if intake is None:
        intake = PLACEHOLDER_INTAKE.format(claim_id=claim.claim_id)
    dispute = PLACEHOLDER_DISPUTE if task_name == "adjudicate_task" else ""
    question = PLACEHOLDER_QUESTION if task_name == TARGETED_TASK else ""
    inputs = kickoff_inputs(loaded, load_config(folder).allowed_answers, dispute, question)
    if task_name in REBUTTAL_TASK_OF.values():
        inputs["other_claim"] = PLACEHOLDER_OTHER_CLAIM

    # The models a run would use are built (no call is made building one), to learn what CrewAI
    # will ask of each; then every agent talks to a probe instead.
    cc = ClaimsCrew(claim.policy_id, llm_for or default_llm_factory(folder), library, folder)
    crew = cc.crew()
    probes: dict[str, PromptProbe] = {}
    for name in cc.agents_config:
        agent = getattr(cc, name)()
        if not isinstance(agent.llm, BaseLLM):
            raise ModelError(f"agent {name}: no model could be built from {agent.llm!r}")
        probes[name] = PromptProbe.mirroring(
            agent.llm, intake if name == "intake" else STAND_IN_ANSWER
        )
        agent.llm = probes[name]
    target: Task = getattr(cc, task_name)()
    if target not in crew.tasks:
        # The adjudicator and the targeted question are asked on their own, after the review:
        # a crew of just the task.
        crew = Crew(
            agents=[target.agent],
            tasks=[target],
            process=Process.sequential,
            memory=False,
            verbose=False,
        )
    crew.kickoff(inputs=inputs)

    calls = probes[agent_name].calls
    if not calls:
        raise ClaimsCrewError(f"{task_name}: CrewAI never called the {agent_name} agent's model")
    first = calls[0]
    assert isinstance(target.agent, Agent)
    tools = _tool_listing(target.agent)
    schema_model = target.output_pydantic or first.response_model
    return RenderedPrompt(
        task=task_name,
        agent=agent_name,
        model=str(probes[agent_name].model),
        native_tool_calling=probes[agent_name].native_tools,
        messages=first.messages,
        tools=tools,
        output_schema=schema_model.model_json_schema() if schema_model is not None else None,
        context=context,
        inputs=inputs,
    )


def as_text(rendered: RenderedPrompt) -> str:
    """The rendering as plain text, for diffing two versions of a prompt."""
    return json.dumps(rendered.as_json(), indent=2, ensure_ascii=False)
