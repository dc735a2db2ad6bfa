"""The claims crew: intake, policy and fraud agents, plus the adjudicator, from config/*.yaml.

A thin @CrewBase: each method is named after its YAML key and only wires in what YAML cannot
carry (the model, the lookup tool restricted to the claim's policy, the output schema).
`review` runs the review tasks in waves (crew/waves.py): intake, then policy and fraud side by
side, because neither reads the other's answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from crewai import Agent, BaseLLM, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task
from pydantic import BaseModel

from claims_crew import settings
from claims_crew.crew.images import intake_files
from claims_crew.crew.waves import run_in_waves
from claims_crew.crew.workarounds import file_store, memo_cache, model_descriptions, yaml_cache
from claims_crew.crew.workarounds.agent_executor import ClaimsAgentExecutor
from claims_crew.crew.workarounds.config_files import use_config_dir
from claims_crew.crew.workarounds.generic_models import share_generic_models
from claims_crew.crew.workarounds.kickoff_log import UnloggedCrew
from claims_crew.crew.workarounds.sdk_models import complete_loaded_sdks
from claims_crew.crew.workarounds.task_schema import schema_task
from claims_crew.llms.select import LLMFactory
from claims_crew.models import AdjudicatorAnswer, ClaimAnswer, IntakeFacts, TargetedAnswer
from claims_crew.policy.library import PolicyLibrary
from claims_crew.tools.policy_lookup import PolicyLookupTool
from claims_crew.vocabulary import ON_DEMAND_TASKS, REBUTTAL_TASK_OF, Side

# Once a process: our models' schema descriptions made once, and CrewAI's file store left
# unasked while it holds no file (crew/workarounds/).
model_descriptions.install()
file_store.install()


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
        photos: Mapping[str, bytes] | None = None,
        yaml_models: bool = True,
        *,
        policy_number: str | None = None,
        date_of_loss: date | None = None,
    ) -> None:
        # What CrewAI would do otherwise is in each module's docstring (crew/workarounds/).
        use_config_dir(self, config_dir if config_dir is not None else settings.config_dir())
        # Set on the instance, as CrewBase puts its own loader on the class.
        self.load_yaml = yaml_cache.load_yaml
        # Before any thread or event loop of this claim copies the context.
        share_generic_models()
        memo_cache.track(self)
        self.policy_id = policy_id
        # The claim's issued policy and date of loss: the lookup tool reads the wording in
        # force for them, as the resolver re-reads it (tools/policy_lookup.py).
        self.policy_number, self.date_of_loss = policy_number, date_of_loss
        self.llm_for = llm_for
        # False for the fallback model (llms/fallback.py): an agent's own `llm:` in agents.yaml
        # names the provider that just failed, so every agent takes `llm_for`'s model instead.
        self.yaml_models = yaml_models
        self.library = library if library is not None else PolicyLibrary()
        # The claim's photos (name → bytes) the intake agent is shown as images as well as
        # their text; empty unless CLAIMS_CREW_INTAKE_IMAGES is on (crew/images.py).
        self.photos = dict(photos or {})
        # Agent name → model, keyed by the YAML key: a tuned role text must not rename it.
        self.models: dict[str, str] = {}

    def _agent(self, name: str, tools: list[Any] | None = None) -> Agent:
        config = dict(self.agents_config[name])
        own = config.pop("llm", None)
        llm: BaseLLM | str = own if own and self.yaml_models else self.llm_for(name)
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
            # CrewAI's executor, less a state class it builds and discards.
            executor_class=ClaimsAgentExecutor,
        )
        self.models[name] = str(getattr(built.llm, "model", built.llm))
        # Before this agent's first call: its SDK's response classes are built (sdk_models.py).
        complete_loaded_sdks()
        return built

    def _lookup_tool(self) -> PolicyLookupTool:
        return PolicyLookupTool(
            library=self.library,
            allowed_policies=frozenset({self.policy_id}),
            policy_number=self.policy_number,
            date_of_loss=self.date_of_loss,
        )

    def _task(self, name: str, schema: type[BaseModel]) -> Task:
        return schema_task(self.tasks_config[name], schema)

    def _shown_photos(self, task: Task) -> Task:
        """An intake task carrying the claim's photos as images, when there are any to show."""
        if self.photos:
            task.input_files = intake_files(self.photos, task.agent)
        return task

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

    # The schema is set here: CrewAI drops output_pydantic written in YAML (task_schema.py).
    @task
    def intake_task(self) -> Task:
        return self._shown_photos(self._task("intake_task", IntakeFacts))

    @task
    def policy_task(self) -> Task:
        return self._task("policy_task", ClaimAnswer)

    @task
    def fraud_task(self) -> Task:
        return self._task("fraud_task", ClaimAnswer)

    @task
    def adjudicate_task(self) -> Task:
        return self._task("adjudicate_task", AdjudicatorAnswer)

    @task
    def targeted_question_task(self) -> Task:
        return self._shown_photos(self._task("targeted_question_task", TargetedAnswer))

    @task
    def policy_rebuttal_task(self) -> Task:
        return self._task("policy_rebuttal_task", ClaimAnswer)

    @task
    def fraud_rebuttal_task(self) -> Task:
        return self._task("fraud_rebuttal_task", ClaimAnswer)

    @crew
    def crew(self) -> Crew:
        """The review tasks one after the other, in CrewAI's sequential process: what CrewAI's
        own commands and the prompt preview run. A claims run calls `review` instead, which
        runs the same tasks with the same inputs; the adjudicator is asked separately."""
        return self._crew_of(self.review_tasks())

    def all_tasks(self) -> list[Task]:
        """Every task of tasks.yaml, in its order: the objects crew() and review() run (the
        @task methods are memoised), so their ids are known before anything runs."""
        return [getattr(self, name)() for name in self.tasks_config]

    def review_tasks(self) -> list[Task]:
        """intake_task, policy_task and fraud_task (every task the rules do not ask for), in
        order."""
        return [t for t in self.all_tasks() if t.name not in ON_DEMAND_TASKS]

    def review(self, inputs: dict[str, Any]) -> None:
        """Run the review tasks wave by wave, the tasks of a wave side by side, each in a crew
        of its own (crew/waves.py); the outputs land on the tasks, where the caller reads them.
        The first failure, in task order, is raised once every task of its wave has ended."""
        run_in_waves(self.review_tasks(), self._crew_of, inputs)

    @staticmethod
    def _crew_of(tasks: list[Task]) -> Crew:
        """These tasks and their agents, in CrewAI's sequential process, with no kickoff log."""
        agents = list({id(t.agent): t.agent for t in tasks if t.agent is not None}.values())
        return UnloggedCrew(
            agents=agents,
            tasks=tasks,
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
        return self._crew_of([adjudicate])

    def rebuttal_crew(self, side: Side) -> Crew:
        """One side's agent alone, shown the other side's claim once in a debate round."""
        rebuttal: Task = getattr(self, REBUTTAL_TASK_OF[side])()
        if rebuttal.agent is None:
            rebuttal.agent = getattr(self, side)()
        return self._crew_of([rebuttal])

    def targeted_crew(self) -> Crew:
        """The intake agent alone, on the one question the conflict rule's open facts raise."""
        question: Task = self.targeted_question_task()  # type: ignore[call-arg]
        if question.agent is None:
            question.agent = self.intake()  # type: ignore[call-arg]
        return self._crew_of([question])
