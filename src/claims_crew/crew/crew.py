"""The claims crew: intake, policy and fraud agents, plus the adjudicator, from config/*.yaml.

A thin @CrewBase: each method is named after its YAML key and only wires in what YAML cannot
carry (the model, the lookup tool restricted to the claim's policy, the output schema).
`review` runs the review tasks in waves (crew/waves.py): intake, then policy and fraud side by
side, because neither reads the other's answer.
"""

from __future__ import annotations

import contextvars
import threading
import weakref
from collections import deque
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from crewai import Agent, BaseLLM, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task
from crewai.project.utils import cache as crewbase_cache
from crewai.utilities.converter import Converter, ConverterError
from pydantic import BaseModel, ValidationError

from claims_crew import paths
from claims_crew.crew import yaml_config
from claims_crew.crew.executor import ClaimsAgentExecutor
from claims_crew.crew.generic_models import share_generic_models
from claims_crew.crew.unlogged import UnloggedCrew
from claims_crew.crew.waves import waves
from claims_crew.errors import ConfigError
from claims_crew.llms.select import LLMFactory
from claims_crew.models import AdjudicatorAnswer, ClaimAnswer, IntakeFacts, TargetedAnswer
from claims_crew.policy.library import PolicyLibrary
from claims_crew.tools.policy_lookup import PolicyLookupTool
from claims_crew.vocabulary import ON_DEMAND_TASKS, REBUTTAL_TASK_OF, Side


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


# Ids of crews freed since the last crew was made (see forget_freed_crews).
_freed_crews: deque[int] = deque()


def forget_freed_crews() -> None:
    """Drop what CrewBase memoised for crews that are gone.

    CrewBase memoises every @agent and @task result in one process-wide cache keyed by the
    crew's id() and never drops them. Once a crew is freed, a new crew can get its id, and
    with it the old claim's Agent and Task objects (the old policy's lookup tool, the old
    models) instead of its own. A freed crew's id is only noted when it goes (the collector
    may free it inside the cache's own lock, which is not reentrant); its entries are dropped
    here, before the next crew memoises anything.
    """
    freed = []
    while _freed_crews:
        freed.append(_freed_crews.popleft())
    if not freed:
        return
    markers = [f"('__instance__', {instance_id})" for instance_id in freed]
    entries = crewbase_cache._cache
    with crewbase_cache._lock.w_locked():
        for key in [k for k in entries if any(marker in k for marker in markers)]:
            del entries[key]


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
        # CrewBase reads both files through this (crew/yaml_config.py): parsed once per content,
        # not once per claim. Set on the instance, as CrewBase puts its own loader on the class.
        self.load_yaml = yaml_config.load_yaml
        # Before any thread or event loop of this claim copies the context (crew/generic_models.py).
        share_generic_models()
        forget_freed_crews()
        weakref.finalize(self, _freed_crews.append, id(self))
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
            # CrewAI's executor, less a state class it builds and discards (crew/executor.py).
            executor_class=ClaimsAgentExecutor,
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

    @task
    def targeted_question_task(self) -> Task:
        return self._task(
            "targeted_question_task",
            output_pydantic=TargetedAnswer,
            converter_cls=StrictConverter,
        )

    @task
    def policy_rebuttal_task(self) -> Task:
        return self._task(
            "policy_rebuttal_task", output_pydantic=ClaimAnswer, converter_cls=StrictConverter
        )

    @task
    def fraud_rebuttal_task(self) -> Task:
        return self._task(
            "fraud_rebuttal_task", output_pydantic=ClaimAnswer, converter_cls=StrictConverter
        )

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
        of its own; the outputs land on the tasks, where the caller reads them.

        One CrewAI crew cannot do this: its sequential process waits for a pending async task
        before it starts the next synchronous one, and it may not end on two async tasks. Crews
        side by side in threads are what a batch already runs for claims side by side. Each
        thread starts from a copy of the caller's context, so the claim's model-call cutoff
        (llms/cutoff.py) holds in both. The first failure, in task order, is raised once every
        task of its wave has ended: nothing of the claim's is still running when this returns.
        """
        for wave in waves(self.review_tasks()):
            if len(wave) == 1:
                self._crew_of(wave).kickoff(inputs=inputs)
                continue
            running = [self._start(self._crew_of([task]), inputs) for task in wave]
            for future in running:
                future.exception()  # wait for every task of the wave, failed or not
            for future in running:
                future.result()

    @staticmethod
    def _crew_of(tasks: list[Task]) -> Crew:
        """These tasks and their agents, in CrewAI's sequential process (crew/unlogged.py)."""
        agents = list({id(t.agent): t.agent for t in tasks if t.agent is not None}.values())
        return UnloggedCrew(
            agents=agents,
            tasks=tasks,
            process=Process.sequential,
            memory=False,
            verbose=False,
        )

    @staticmethod
    def _start(one: Crew, inputs: dict[str, Any]) -> Future[Any]:
        """Kick a crew off in a daemon thread, as CrewAI starts an async task: a thread blocked
        on a silent provider must not keep the process alive (deadline.py)."""
        future: Future[Any] = Future()
        context = contextvars.copy_context()

        def run() -> None:
            try:
                future.set_result(context.run(one.kickoff, inputs=inputs))
            except BaseException as exc:  # handed to the waiting side, whatever it is
                future.set_exception(exc)

        threading.Thread(target=run, name=f"crew {one.tasks[0].name}", daemon=True).start()
        return future

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
