"""The claims crew: intake, policy and fraud agents, plus the adjudicator, from config/*.yaml.

A thin @CrewBase: each method is named after its YAML key and only wires in what YAML cannot
carry (the model, the lookup tool restricted to the claim's policy, the output schema).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crewai import Agent, BaseLLM, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task
from crewai.utilities.converter import Converter, ConverterError
from pydantic import BaseModel, ValidationError

from claims_crew import paths
from claims_crew.errors import ConfigError
from claims_crew.llms.select import LLMFactory
from claims_crew.models import AdjudicatorAnswer, ClaimAnswer, IntakeFacts
from claims_crew.policy.library import PolicyLibrary
from claims_crew.tools.policy_lookup import PolicyLookupTool
from claims_crew.vocabulary import ADJUDICATE_TASK


class StrictConverter(Converter):
    """Validate the agent's final answer against the schema, and never ask a model to fix it.

    CrewAI's own converter makes an extra model call when the answer does not parse, and fails
    the whole crew if that call fails too. Here a bad answer is left as raw text; the pipeline
    records it as a parse_error and the other agents' work is kept.
    """

    def to_pydantic(self, current_attempt: int = 1) -> BaseModel:
        try:
            return self.model.model_validate_json(self.text)
        except ValidationError as exc:
            return ConverterError(f"answer does not match {self.model.__name__}: {exc}")  # type: ignore[return-value]

    def to_json(self, current_attempt: int = 1) -> dict[str, Any]:
        result = self.to_pydantic(current_attempt)
        if isinstance(result, ConverterError):
            return result  # type: ignore[return-value]
        return result.model_dump(mode="json")


@CrewBase
class ClaimsCrew:
    """The crew for one claim against one policy."""

    agents: list[Agent]
    tasks: list[Task]
    agents_config: dict[str, Any]  # loaded by CrewBase from the YAML
    tasks_config: dict[str, Any]

    def __init__(
        self,
        policy_id: str,
        llm_for: LLMFactory,
        library: PolicyLibrary | None = None,
        config_dir: Path | None = None,
    ) -> None:
        folder = config_dir if config_dir is not None else paths.config_dir()
        for name in ("agents.yaml", "tasks.yaml"):
            if not (folder / name).is_file():
                # CrewAI would only log a warning and run with no agents at all.
                raise ConfigError(f"{folder / name}: missing")
        self.original_agents_config_path = str((folder / "agents.yaml").resolve())
        self.original_tasks_config_path = str((folder / "tasks.yaml").resolve())
        self.policy_id = policy_id
        self.llm_for = llm_for
        self.library = library if library is not None else PolicyLibrary()
        # Agent name → model, keyed by the YAML key: a tuned role text must not rename it.
        self.models: dict[str, str] = {}

    def _agent(self, name: str, tools: list[Any] | None = None) -> Agent:
        config = dict(self.agents_config[name])
        llm: BaseLLM | str = config.pop("llm", None) or self.llm_for(name)
        built = Agent(
            config=config,
            llm=llm,
            tools=tools or [],
            allow_delegation=False,
            memory=False,
            verbose=False,
            # CrewAI would run a task again from the start after a failed model call, on top of
            # the client's own retries: a silent provider would cost three times the retry
            # budget (limits.py). The client retries one call; the next run retries the claim.
            max_retry_limit=0,
        )
        self.models[name] = str(getattr(built.llm, "model", built.llm))
        return built

    def _lookup_tool(self) -> PolicyLookupTool:
        return PolicyLookupTool(library=self.library, allowed_policies=frozenset({self.policy_id}))

    def _task(self, name: str, **python_only: Any) -> Task:
        # Task(config=...) takes description, expected_output and the rest from the YAML.
        return Task(config=self.tasks_config[name], **python_only)

    @agent
    def intake(self) -> Agent:
        return self._agent("intake")

    @agent
    def policy(self) -> Agent:
        return self._agent("policy", [self._lookup_tool()])

    @agent
    def fraud(self) -> Agent:
        return self._agent("fraud", [self._lookup_tool()])

    @agent
    def adjudicator(self) -> Agent:
        return self._agent("adjudicator")

    # output_pydantic is set here because CrewAI drops it silently when written in YAML.
    @task
    def intake_task(self) -> Task:
        return self._task("intake_task", output_pydantic=IntakeFacts, converter_cls=StrictConverter)

    @task
    def policy_task(self) -> Task:
        return self._task("policy_task", output_pydantic=ClaimAnswer, converter_cls=StrictConverter)

    @task
    def fraud_task(self) -> Task:
        return self._task("fraud_task", output_pydantic=ClaimAnswer, converter_cls=StrictConverter)

    @task
    def adjudicate_task(self) -> Task:
        return self._task(
            "adjudicate_task", output_pydantic=AdjudicatorAnswer, converter_cls=StrictConverter
        )

    @crew
    def crew(self) -> Crew:
        """Intake, then policy and fraud; the adjudicator is asked separately, if needed."""
        review = [t for t in self.tasks if t.name != ADJUDICATE_TASK]
        reviewers = list({id(t.agent): t.agent for t in review if t.agent is not None}.values())
        return Crew(
            agents=reviewers,
            tasks=review,
            process=Process.sequential,
            memory=False,
            verbose=False,
        )

    def adjudication_crew(self) -> Crew:
        """The adjudicator alone, for one interpretation dispute; run only when the rules say so."""
        # Memoised by @task and @agent: the same objects crew() saw. (The decorators' types do
        # not describe a bound call.)
        adjudicate: Task = self.adjudicate_task()  # type: ignore[call-arg]
        if adjudicate.agent is None:
            adjudicate.agent = self.adjudicator()  # type: ignore[call-arg]
        return Crew(
            agents=[adjudicate.agent],
            tasks=[adjudicate],
            process=Process.sequential,
            memory=False,
            verbose=False,
        )
