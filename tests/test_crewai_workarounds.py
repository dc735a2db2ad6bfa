"""Canaries for crew/workarounds/: each checks that the installed CrewAI (or pydantic) still
behaves the way one workaround assumes, and fails with the module to drop or revisit once an
upgrade changes that. They exercise CrewAI's own objects, offline, with no model behind them
(CrewAI's OpenAI client talks to the scripted server on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import inspect
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest
import yaml
from crewai import LLM, Agent, Crew, Process, Task
from crewai import crew as crewai_crew
from crewai import task as crewai_task
from crewai.agents import agent_executor as crewai_agent_executor
from crewai.agents.agent_executor import AgentExecutor
from crewai.flow import Flow, listen, start
from crewai.flow import runtime as flow_runtime
from crewai.project import CrewBase, task
from crewai.project.utils import cache as crewbase_cache
from crewai.utilities import file_store as crewai_file_store
from crewai.utilities.converter import Converter
from crewai.utilities.task_output_storage_handler import TaskOutputStorageHandler
from pydantic import BaseModel, PrivateAttr, ValidationError

import claims_crew.crew.crew  # noqa: F401  (installs the workarounds the crew module installs)
from claims_crew.crew.workarounds import file_store as ours_file_store
from claims_crew.crew.workarounds.agent_executor import ClaimsAgentExecutor
from claims_crew.crew.workarounds.kickoff_log import NoKickoffLog
from claims_crew.crew.workarounds.steps_in_place import StepsInPlace, in_place
from claims_crew.crew.workarounds.verbatim_answers import verbatim
from claims_crew.llms.scripted import ScriptedLLM, final
from claims_crew.models import AdjudicatorAnswer, TargetedAnswer
from tests.support.flow_states import declared_states
from tests.support.openai_server import OpenAIServer, StartServer, Text

T = TypeVar("T")
WORKAROUNDS = "src/claims_crew/crew/workarounds"


def drop(module: str, what: str) -> str:
    return f"{what}: drop {WORKAROUNDS}/{module} (and its call in crew/crew.py), or revisit it"


def revisit(module: str, what: str) -> str:
    return f"{what}: revisit {WORKAROUNDS}/{module}, which relies on it"


class Answer(BaseModel):
    x: int


@CrewBase
class Bare:
    """A CrewBase crew as CrewAI's templates write one, pointing at YAML that is not there."""

    agents_config = "no/such/folder/agents.yaml"
    tasks_config = "no/such/folder/tasks.yaml"

    @task
    def step(self) -> Task:
        return Task(description="d", expected_output="e")


# --- memo_cache.py ---------------------------------------------------------------------------


def test_crewbase_memo_cache_keeps_a_freed_crews_results() -> None:
    assert hasattr(crewbase_cache, "_cache"), revisit("memo_cache.py", "CacheHandler._cache gone")
    assert callable(getattr(getattr(crewbase_cache, "_lock", None), "w_locked", None)), revisit(
        "memo_cache.py", "CacheHandler._lock.w_locked gone"
    )
    crew = Bare()
    crew.step()
    marker = f"('__instance__', {id(crew)})"
    try:
        assert any(marker in key for key in crewbase_cache._cache), revisit(
            "memo_cache.py", "CrewBase no longer memoises by ('__instance__', id(crew))"
        )
        del crew
        gc.collect()
        assert any(marker in key for key in crewbase_cache._cache), drop(
            "memo_cache.py",
            "CrewBase dropped a freed crew's memoised results (crewAI #7338 fixed, #7341?)",
        )
    finally:
        with crewbase_cache._lock.w_locked():
            for key in [k for k in crewbase_cache._cache if marker in k]:
                del crewbase_cache._cache[key]


# --- config_files.py -------------------------------------------------------------------------


def test_crewbase_reads_yaml_beside_the_module_and_runs_without_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert Bare.base_directory == Path(__file__).parent, revisit(  # type: ignore[attr-defined]
        "config_files.py", "CrewBase no longer resolves config paths beside the crew's module"
    )
    crew = Bare()
    assert (crew.agents_config, crew.tasks_config) == ({}, {}), drop(  # type: ignore[attr-defined]
        "config_files.py", "CrewBase no longer runs with empty config when a file is missing"
    )
    assert "not found" in caplog.text


# --- yaml_cache.py ---------------------------------------------------------------------------


def test_crewbase_parses_its_yaml_for_every_crew_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "agents.yaml").write_text("a:\n  role: r\n  goal: g\n  backstory: b\n")
    (tmp_path / "tasks.yaml").write_text("t:\n  description: d\n  expected_output: e\n")

    @CrewBase
    class FromYaml:
        agents_config = str(tmp_path / "agents.yaml")
        tasks_config = str(tmp_path / "tasks.yaml")

    parsed: list[object] = []
    safe_load = yaml.safe_load

    def counted(stream: Any) -> Any:
        parsed.append(stream)
        return safe_load(stream)

    monkeypatch.setattr(yaml, "safe_load", counted)
    FromYaml()
    FromYaml()
    assert len(parsed) == 4, drop(
        "yaml_cache.py", f"CrewBase parsed its two files {len(parsed)} times for two crews"
    )

    @CrewBase
    class OwnLoader:
        agents_config = str(tmp_path / "agents.yaml")
        tasks_config = str(tmp_path / "tasks.yaml")

        def __init__(self) -> None:
            self.load_yaml = lambda path: {"seen": {"path": str(path)}}

    assert set(OwnLoader().agents_config) == {"seen"}, revisit(  # type: ignore[attr-defined]
        "yaml_cache.py", "CrewBase no longer reads its YAML through the instance's load_yaml"
    )


# --- task_schema.py --------------------------------------------------------------------------


def test_output_pydantic_written_in_yaml_is_dropped() -> None:
    from_yaml = {"description": "d", "expected_output": "e", "output_pydantic": "Answer"}
    assert Task(config=from_yaml).output_pydantic is None, drop(  # type: ignore[call-arg]
        "task_schema.py", "Task now takes output_pydantic by name from its YAML config"
    )


# --- strict_converter.py ---------------------------------------------------------------------


def test_crewais_converter_asks_the_model_to_fix_an_answer() -> None:
    model = ScriptedLLM(['{"x": 1}'])
    converter = Converter(llm=model, text="x is one", model=Answer, instructions="as JSON")
    assert converter.to_pydantic() == Answer(x=1)
    assert len(model.calls) == 1, drop(
        "strict_converter.py", "CrewAI's Converter no longer makes a model call for the schema"
    )


# --- agent_executor.py -----------------------------------------------------------------------


def test_agent_executor_declares_a_state_class_it_throws_away() -> None:
    for name in ("_create_initial_state", "flow_definition"):
        assert callable(getattr(AgentExecutor, name, None)), revisit(
            "agent_executor.py", f"AgentExecutor.{name} gone"
        )
    assert declared_states(AgentExecutor) == 1, drop(
        "agent_executor.py", "building an AgentExecutor no longer declares a Flow state class"
    )


def _builds_on_two_first_calls(
    monkeypatch: pytest.MonkeyPatch, first_call: Any, second_waited_s: float
) -> int:
    """How many times the executor's flow definition is built when a second thread asks for it
    while the first is building it, before anything has built it. The second thread starts once
    the first is inside the build, which then waits up to `second_waited_s` for the second to
    come in too: an unguarded second call always does, however slow the machine."""
    real = flow_runtime.build_flow_definition
    first_inside, second_inside = threading.Event(), threading.Event()
    builds: list[type] = []

    def overlapping(cls: type) -> Any:
        builds.append(cls)
        if len(builds) == 1:
            first_inside.set()
            second_inside.wait(timeout=second_waited_s)  # the second call, if it is let in
        else:
            second_inside.set()
        return real(cls)

    monkeypatch.setattr(flow_runtime, "build_flow_definition", overlapping)
    if "_flow_definition" in AgentExecutor.__dict__:  # built by an earlier test: unbuilt again
        monkeypatch.delattr(AgentExecutor, "_flow_definition")
    first = threading.Thread(target=first_call)
    first.start()
    assert first_inside.wait(timeout=120)
    second = threading.Thread(target=first_call)
    second.start()
    first.join()
    second.join()
    assert AgentExecutor.__dict__.get("_flow_definition") is not None
    return len(builds)


def test_crewai_builds_a_flow_definition_on_first_use_unguarded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _builds_on_two_first_calls(monkeypatch, AgentExecutor.flow_definition, 120)
    assert built == 2, drop(
        "agent_executor.py's _building_definition lock",
        "CrewAI now builds a Flow's definition once when threads first ask together",
    )


def test_the_executor_s_flow_definition_is_built_once_by_threads_asking_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The lock keeps the second call out whatever the wait: it is built once.
    assert _builds_on_two_first_calls(monkeypatch, ClaimsAgentExecutor.flow_definition, 1) == 1


# --- file_store.py ---------------------------------------------------------------------------


def _threads_started(monkeypatch: pytest.MonkeyPatch, lookups: Any) -> tuple[Any, int]:
    """What `lookups` returns, run inside a running event loop (as the agent executor's steps
    run), and how many threads CrewAI's file store started for it."""
    started: list[int] = []
    real = crewai_file_store.concurrent.futures.ThreadPoolExecutor

    class Counted(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            started.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(crewai_file_store.concurrent.futures, "ThreadPoolExecutor", Counted)

    async def in_a_loop() -> Any:
        return lookups()

    return asyncio.run(in_a_loop()), len(started)


def test_crewai_starts_a_thread_to_look_its_file_store_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    crewais = ours_file_store._crewais["get_all_files"]
    found, threads = _threads_started(monkeypatch, lambda: crewais(uuid.uuid4(), uuid.uuid4()))
    assert found is None and threads == 1, drop(
        "file_store.py", "CrewAI no longer starts a thread to look its file store up"
    )
    store = crewai_file_store._file_store
    assert store is not None and store._cache == {}, revisit(
        "file_store.py", "CrewAI's file store is no aiocache memory cache keeping `_cache`"
    )


def test_the_crew_looks_up_an_empty_file_store_without_a_thread_and_a_full_one_as_crewai(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    crew_id, task_id = uuid.uuid4(), uuid.uuid4()
    # What CrewAI's own modules call, once the crew module has installed ours.
    calls = (
        lambda: crewai_task.get_all_files(crew_id, task_id),
        lambda: crewai_crew.get_all_files(crew_id, task_id),
        lambda: crewai_agent_executor.get_all_files(crew_id, task_id),
        lambda: crewai_crew.clear_files(crew_id),
        lambda: crewai_task.clear_task_files(task_id),
    )
    assert [_threads_started(monkeypatch, call) for call in calls] == [(None, 0)] * 5
    crewai_file_store.store_files(crew_id, {"photo": "bytes of a photo"})
    try:
        assert not ours_file_store.holds_nothing()
        found, threads = _threads_started(monkeypatch, calls[2])
        assert found == {"photo": "bytes of a photo"} and threads == 1
        assert crewai_crew.get_all_files(uuid.uuid4()) is None  # another crew's: none
    finally:
        crewai_crew.clear_files(crew_id)
    assert ours_file_store.holds_nothing()


# --- listener_index.py -----------------------------------------------------------------------


def _conditions_checked(executor: Any) -> tuple[list[list[str]], list[tuple[str, str]]]:
    """Every event of the executor's definition (its methods' names and its routers' routes)
    finished in turn, twice (so a pending "and" or a fired "or" is met again), each asked for
    its routers and then its plain listeners: what each triggered, and every (listener, event)
    whose condition was checked on the way."""
    checked: list[tuple[str, str]] = []
    real = executor._condition_met

    def spy(condition: Any, trigger: str, key: str) -> bool:
        checked.append((str(key), str(trigger)))
        return bool(real(condition, trigger, key))

    object.__setattr__(executor, "_condition_met", spy)  # on this one object only
    names = dict.fromkeys(executor._definition.methods)
    for _, _, condition in executor._listener_methods():
        names.update(dict.fromkeys(flow_runtime._iter_condition_events(condition)))
    found = [executor._find_triggered_methods(n, r) for n in [*names] * 2 for r in (True, False)]
    return found, checked


def _naming(executor: Any) -> dict[str, set[str]]:
    """Each listener → the events its condition names."""
    return {
        str(name): set(flow_runtime._iter_condition_events(condition))
        for name, _, condition in executor._listener_methods()
    }


def test_crewai_checks_every_listener_after_every_step() -> None:
    for name in ("_find_triggered_methods", "_condition_met", "_listener_methods"):
        assert callable(getattr(AgentExecutor, name, None)), revisit(
            "listener_index.py", f"Flow.{name} gone"
        )
    executor = AgentExecutor()
    _, checked = _conditions_checked(executor)
    first = {listener for listener, event in checked if event == "step_executed"}
    assert len(first) > 20 and first == set(_naming(executor)), drop(
        "listener_index.py", "CrewAI no longer checks every listener after every step"
    )


def test_the_executor_triggers_what_crewai_does_checking_only_listeners_naming_the_step() -> None:
    ours, theirs = ClaimsAgentExecutor(), AgentExecutor()
    found, checked = _conditions_checked(ours)
    assert found == _conditions_checked(theirs)[0]
    assert sum(map(len, found)) > 50  # most events trigger a listener, some several
    assert ours._fired_or_listeners == theirs._fired_or_listeners != set()
    naming = _naming(ours)
    assert checked != [] and [(k, e) for k, e in checked if e not in naming[k]] == []


# --- verbatim_answers.py ---------------------------------------------------------------------

EXTRA_KEY = '{"answers": [], "note": "a key the schema does not allow"}'


def _client(openai_server: StartServer) -> tuple[LLM, OpenAIServer]:
    """CrewAI's own OpenAI client, against the scripted server answering EXTRA_KEY."""
    server = openai_server(lambda _request: Text(EXTRA_KEY))
    client = LLM(model="openai/gpt-4o-mini", base_url=server.base_url, api_key="sk-test")
    return client, server


def test_crewais_client_validates_structured_output_and_loses_the_text(
    openai_server: StartServer,
) -> None:
    with pytest.raises(ValidationError) as refused:
        _client(openai_server)[0].call("answer", response_model=TargetedAnswer)
    assert EXTRA_KEY not in str(refused.value), drop(
        "verbatim_answers.py", "CrewAI's client now keeps the text of an answer it refuses"
    )


def test_the_client_is_held_to_the_schema_and_the_answer_kept_as_sent(
    openai_server: StartServer,
) -> None:
    client, server = _client(openai_server)
    kept = client.call("answer", response_model=verbatim(TargetedAnswer))
    assert isinstance(kept, BaseModel) and kept.model_dump_json() == EXTRA_KEY
    [request] = server.requests
    sent = request.body["response_format"]["json_schema"]
    assert sent["name"] == "TargetedAnswer"
    assert set(sent["schema"]["properties"]) == set(TargetedAnswer.model_fields)


def test_every_executor_hands_the_client_the_verbatim_model() -> None:
    """CrewAI sets the executor's response_model when it builds it and again per task."""
    agent = Agent(role="r", goal="g", backstory="b", llm=ScriptedLLM([]))
    built = ClaimsAgentExecutor(llm=agent.llm, agent=agent, response_model=TargetedAnswer)
    assert built.response_model is verbatim(TargetedAnswer)
    built.response_model = AdjudicatorAnswer
    assert built.response_model is verbatim(AdjudicatorAnswer)


# --- kickoff_log.py --------------------------------------------------------------------------


class Recording(NoKickoffLog):
    """Notes what a kickoff asks of the kickoff log."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def reset(self) -> None:
        self.asked.append("reset")

    def add(self, *args: Any, **kwargs: Any) -> None:
        self.asked.append("write")

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.asked.append("write")


class RecordedCrew(Crew):
    _task_output_handler: TaskOutputStorageHandler = PrivateAttr(default_factory=Recording)


def test_every_crew_keeps_a_kickoff_log_in_one_sqlite_file() -> None:
    assert "_task_output_handler" in Crew.__private_attributes__, revisit(
        "kickoff_log.py", "Crew._task_output_handler gone"
    )
    helper = Agent(role="r", goal="g", backstory="b", llm=ScriptedLLM([final("done")] * 2))
    one = Task(description="d", expected_output="e", agent=helper)
    built = Crew(agents=[helper], tasks=[one], process=Process.sequential)
    storage = built._task_output_handler.storage
    assert Path(storage.db_path).is_file(), drop(
        "kickoff_log.py", "building a Crew no longer opens the kickoff log's SQLite file"
    )
    recorded = RecordedCrew(agents=[helper], tasks=[one], process=Process.sequential)
    recorded.kickoff()
    log = recorded._task_output_handler
    assert isinstance(log, Recording)
    assert {"reset", "write"} <= set(log.asked), drop(
        "kickoff_log.py", f"a kickoff no longer clears and writes the kickoff log ({log.asked})"
    )


# --- generic_models.py -----------------------------------------------------------------------


class Box(BaseModel, Generic[T]):
    item: T


def test_pydantic_builds_generic_classes_again_in_each_context_copy() -> None:
    made: list[bool] = []

    def in_two_copies() -> None:  # a new thread starts from an empty context, as a claim's
        built = [contextvars.copy_context().run(lambda: Box[int]) for _ in range(2)]
        made.append(built[0] is built[1])

    thread = threading.Thread(target=in_two_copies)
    thread.start()
    thread.join()
    assert made == [False], drop(
        "generic_models.py", "pydantic now shares generic classes between context copies"
    )


# --- sdk_models.py ---------------------------------------------------------------------------

SDK_CLASSES = (
    "from openai.types.chat import ChatCompletionMessage as M; "
    "from openai.types.chat.chat_completion import Choice as C"
)
BUILT = "print(M.__pydantic_complete__, C.__pydantic_complete__)"


def _in_a_fresh_process(code: str) -> str:
    """What `code` prints in a new interpreter, where no response has been read yet."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_openai_builds_its_response_classes_on_first_use() -> None:
    assert _in_a_fresh_process(f"{SDK_CLASSES}; {BUILT}") == "False False", drop(
        "sdk_models.py", "openai's response classes are built when it is imported"
    )


def test_a_crew_s_agent_is_built_with_its_sdk_s_response_classes_built() -> None:
    crew = (
        "from crewai import LLM; from claims_crew.crew.crew import ClaimsCrew; "
        "llm = LLM(model='openai/gpt-4o-mini', api_key='sk-test', base_url='http://127.0.0.1:9'); "
        "ClaimsCrew('HO-2024', lambda _name: llm).intake()"
    )
    assert _in_a_fresh_process(f"{SDK_CLASSES}; {crew}; {BUILT}") == "True True"


def test_every_class_a_chat_call_reads_is_reached_from_the_roots() -> None:
    import anthropic.types as at
    from openai.types.chat import ChatCompletionMessageFunctionToolCall
    from openai.types.completion_usage import CompletionTokensDetails

    from claims_crew.crew.workarounds.sdk_models import reachable, root_classes

    openai_classes = set(reachable(root_classes("openai")))
    assert {ChatCompletionMessageFunctionToolCall, CompletionTokensDetails} <= openai_classes
    assert {at.TextBlock, at.ToolUseBlock, at.Usage} <= set(reachable(root_classes("anthropic")))


# --- model_descriptions.py -------------------------------------------------------------------


def test_crewai_describes_a_model_afresh_every_time() -> None:
    from crewai.utilities import pydantic_schema_utils

    from claims_crew.crew.workarounds import model_descriptions

    crewais = model_descriptions._crewais
    assert crewais is pydantic_schema_utils.generate_model_description, revisit(
        "model_descriptions.py", "CrewAI's generate_model_description is no longer its own"
    )
    first, second = crewais(TargetedAnswer), crewais(TargetedAnswer)
    assert first == second and first is not second, drop(
        "model_descriptions.py", "CrewAI keeps a model's description itself now"
    )
    assert not hasattr(crewais, "cache_info"), drop(
        "model_descriptions.py", "CrewAI caches generate_model_description now"
    )


def test_our_models_are_described_once_and_each_caller_gets_its_own_copy() -> None:
    import importlib

    from claims_crew.crew.workarounds import model_descriptions
    from claims_crew.tools.policy_lookup import PolicyLookupArgs

    for name in model_descriptions.CREWAI_CALLERS:
        module = importlib.import_module(name)
        assert module.generate_model_description is model_descriptions.generate_model_description
    crewais = model_descriptions._crewais
    for model, strip in [(AdjudicatorAnswer, True), (PolicyLookupArgs, False)]:
        kept = model_descriptions.generate_model_description(model, strip_null_types=strip)
        assert kept == crewais(model, strip_null_types=strip)
        kept["json_schema"]["schema"].pop("title", None)  # as agent_utils edits its copy
        again = model_descriptions.generate_model_description(model, strip_null_types=strip)
        assert again == crewais(model, strip_null_types=strip)
        assert (model, strip) in model_descriptions._made
    # Not ours: CrewAI's own function, nothing kept (classes made on the fly would pile up).
    described = model_descriptions.generate_model_description(Answer)
    assert described == crewais(Answer)
    assert not any(model is Answer for model, _ in model_descriptions._made)


def test_our_models_descriptions_are_copied_from_their_json_text_type_for_type() -> None:
    from claims_crew.crew.workarounds import model_descriptions
    from claims_crew.tools.policy_lookup import PolicyLookupArgs

    crewais = model_descriptions._crewais
    for model, strip in [
        (AdjudicatorAnswer, True),
        (TargetedAnswer, False),
        (PolicyLookupArgs, True),
    ]:
        kept = model_descriptions.generate_model_description(model, strip_null_types=strip)
        assert model_descriptions.same(kept, crewais(model, strip_null_types=strip))
        description, text = model_descriptions._made[(model, strip)]
        assert text is not None and kept is not description, model  # parsed, not deep-copied
    # What JSON would not give back is told apart, and copied the slow way.
    assert not model_descriptions.same({"maximum": 1}, {"maximum": 1.0})
    assert not model_descriptions.same({"enum": ("a",)}, {"enum": ["a"]})
    assert not model_descriptions.same({"a": 1, "b": 2}, {"b": 2, "a": 1})


def test_the_converter_s_instructions_depend_on_the_model_alone_and_are_kept() -> None:
    """CrewAI writes the same instructions whether the model calls functions or not (else
    revisit model_descriptions.py, which keeps them per class); the converter asks ours."""
    from crewai.utilities import converter

    from claims_crew.crew.workarounds import model_descriptions
    from claims_crew.crew.workarounds.strict_converter import StrictConverter

    crewais = model_descriptions._crewais_instructions
    # No call is made: the client only says what it supports.
    calling = LLM(model="openai/gpt-4o-mini", api_key="k", base_url="http://127.0.0.1:9/v1")
    plain = ScriptedLLM([])
    assert calling.supports_function_calling() and not plain.supports_function_calling()
    assert crewais(model=TargetedAnswer, llm=calling) == crewais(model=TargetedAnswer, llm=plain), (
        revisit("model_descriptions.py", "CrewAI's instructions now depend on the model")
    )
    assert converter.get_conversion_instructions is model_descriptions.get_conversion_instructions
    agent = Agent(role="r", goal="g", backstory="b", llm=calling)
    answer = '{"answer": "covered", "reason": "r", "evidence": []}'
    converter.convert_to_model(answer, AdjudicatorAnswer, None, agent, StrictConverter)
    kept = model_descriptions._instructions[AdjudicatorAnswer]
    assert kept == crewais(model=AdjudicatorAnswer, llm=calling)
    assert model_descriptions.get_conversion_instructions(AdjudicatorAnswer, calling) is kept
    # Not ours: CrewAI's own, nothing kept.
    assert model_descriptions.get_conversion_instructions(Answer, calling) == crewais(
        model=Answer, llm=calling
    )
    assert Answer not in model_descriptions._instructions


def _signatures_computed(monkeypatch: pytest.MonkeyPatch, build: Any) -> int:
    """How many functions' signatures `inspect` works out (not finds kept) while `build` runs."""
    computed: list[object] = []
    real = inspect._signature_from_function  # type: ignore[attr-defined]

    def counting(*args: Any, **kwargs: Any) -> Any:
        computed.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(inspect, "_signature_from_function", counting)
    build()
    return len(computed)


def _executor(executor_class: type) -> Any:
    agent = Agent(role="r", goal="g", backstory="b", llm=ScriptedLLM([]))
    work = Task(description="d", expected_output="e", agent=agent)
    return executor_class(
        llm=agent.llm,
        task=work,
        crew=None,
        agent=agent,
        prompt={},
        max_iter=1,
        tools=[],
        tools_names="",
        stop_words=[],
        tools_description="",
        tools_handler=None,
    )


def test_crewai_works_out_every_flow_method_s_signature_for_each_executor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from crewai.flow import flow_wrappers

    assert flow_wrappers.inspect.signature is not None
    first = _executor(ClaimsAgentExecutor)  # anything built once a process is built now
    # Once kept, no flow method's signature is worked out again for the next executor.
    assert _signatures_computed(monkeypatch, lambda: _executor(ClaimsAgentExecutor)) == 0

    for name in type(first).flow_definition().methods:
        method = getattr(AgentExecutor, name)._meth
        kept = method.__dict__.pop("__signature__")
        try:  # the kept signature is the one inspect works out
            assert inspect.signature(method) == kept, name
        finally:
            method.__signature__ = kept
    # CrewAI's binding still asks for each.
    asked: list[object] = []
    real = flow_wrappers.inspect.signature
    monkeypatch.setattr(flow_wrappers.inspect, "signature", lambda f: asked.append(f) or real(f))
    _executor(AgentExecutor)
    assert len(asked) >= len(first.flow_definition().methods), drop(
        "agent_executor.py's keep_signatures", "CrewAI no longer binds each flow method anew"
    )


# --- steps_in_place.py -----------------------------------------------------------------------

_outside = contextvars.ContextVar("_outside", default="unset")


class _Steps(Flow):  # type: ignore[type-arg]
    """Two plain steps, each noting what it sees of threads, loops and the context."""

    _skip_auto_memory: bool = True  # as AgentExecutor's: no Memory made for a test flow
    _seen: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    def _see(self, **more: Any) -> None:
        try:
            asyncio.get_event_loop()
            current = "a current loop"
        except RuntimeError:
            current = "none"

        async def nested() -> str:
            return "an event loop of its own"

        self._seen.append(
            {
                "thread": threading.get_ident(),
                "running": asyncio.events._get_running_loop(),
                "current": current,
                "nested": asyncio.run(nested()),
                "outside": _outside.get(),
                **more,
            }
        )

    @start()
    def first(self) -> str:
        self._see()
        _outside.set("set by the first step")
        return "the first step's result"

    @listen(first)
    def second(self, result: str) -> str:
        self._see(given=result)
        return "done"


class _StepsInPlace(StepsInPlace, _Steps):
    @classmethod
    def flow_definition(cls) -> Any:  # _Steps' own, as ClaimsAgentExecutor runs AgentExecutor's
        return _Steps.flow_definition()


def _ran(flow: _Steps) -> list[dict[str, Any]]:
    token = _outside.set("set before kickoff")
    try:
        assert flow.kickoff() == "done"
    finally:
        _outside.reset(token)
    return flow._seen


def test_crewai_hands_each_plain_step_to_a_thread() -> None:
    seen = _ran(_Steps())
    assert all(step["thread"] != threading.get_ident() for step in seen), drop(
        "steps_in_place.py", "CrewAI's flow engine runs plain steps on its own thread"
    )


def test_steps_run_in_place_see_what_a_pool_thread_sees() -> None:
    crewais, ours = _ran(_Steps()), _ran(_StepsInPlace())
    assert [step["thread"] for step in ours] == [threading.get_ident()] * 2
    for step in (*crewais, *ours):
        del step["thread"]
    first = {
        "running": None,
        "current": "none",
        "nested": "an event loop of its own",
        "outside": "set before kickoff",  # the caller's context, copied
    }
    # The listener is given its trigger's result; the first step's context was a copy.
    assert ours == crewais == [first, {**first, "given": "the first step's result"}]


def test_a_step_run_in_place_raises_what_it_raises_and_leaves_the_loop_as_it_was() -> None:
    def failing(result: str) -> str:
        raise LookupError(result)

    step = in_place(failing)
    assert asyncio.iscoroutinefunction(step)
    assert inspect.signature(step) == inspect.signature(failing)

    async def awaited() -> tuple[Any, ...]:
        loop = asyncio.get_running_loop()
        with pytest.raises(LookupError, match="why"):
            await step("why")
        return loop, asyncio.get_running_loop(), asyncio.get_event_loop_policy().get_event_loop()

    before, running, current = asyncio.run(awaited())
    assert running is before and current is before


def test_every_step_of_the_executor_runs_in_place_with_crewai_s_signature() -> None:
    ours, theirs = _executor(ClaimsAgentExecutor)._methods, _executor(AgentExecutor)._methods
    assert ours.keys() == theirs.keys() and len(ours) > 20
    for name, step in ours.items():
        assert asyncio.iscoroutinefunction(step), name
        assert inspect.signature(step) == inspect.signature(theirs[name]), name
