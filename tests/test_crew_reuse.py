"""What a claim's crew no longer rebuilds: the YAML it was given, a state class per executor,
and pydantic's generic classes per thread. Each saving is checked against what it replaces."""

from __future__ import annotations

import contextvars
import gc
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest
import yaml
from crewai.agents.agent_executor import AgentExecutor, AgentExecutorState
from pydantic import BaseModel

from claims_crew.claim_files import load_claim
from claims_crew.crew.crew import ClaimsCrew
from claims_crew.crew.workarounds import yaml_cache
from claims_crew.crew.workarounds.agent_executor import ClaimsAgentExecutor
from claims_crew.crew.workarounds.generic_models import share_generic_models
from claims_crew.models import Claim
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from tests.support.crew import WATER_CLAIM, Script, settings, water_script
from tests.support.flow_states import declared_states
from tests.support.paths import ROOT

T = TypeVar("T")


def config_copy(tmp_path: Path) -> Path:
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    return config


# --- the YAML --------------------------------------------------------------------------------


def test_each_yaml_file_is_parsed_once_for_many_crews(
    sample_library: PolicyLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = config_copy(tmp_path)
    parsed: list[str] = []
    safe_load = yaml.safe_load
    plain_data = yaml_cache.plain_data

    def counting(stream: Any) -> Any:
        parsed.append(stream if isinstance(stream, str) else "")
        return safe_load(stream)

    def counting_plain(text: Any, safe_loader: Any = None) -> Any:
        parsed.append(text if isinstance(text, str) else "")
        return plain_data(text, safe_loader)

    # The cache reads through the YAML home; CrewBase's own load_yaml would call safe_load.
    monkeypatch.setattr(yaml, "safe_load", counting)
    monkeypatch.setattr(yaml_cache, "plain_data", counting_plain)
    crews = [ClaimsCrew("HM-HOME-001", Script(), sample_library, config) for _ in range(3)]
    assert len(parsed) == 2  # agents.yaml and tasks.yaml, for the first crew only
    assert all(c.agents_config.keys() == crews[0].agents_config.keys() for c in crews)


def test_an_edit_is_seen_by_the_next_crew_even_with_the_same_size_and_time(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    config = config_copy(tmp_path)
    agents = config / "agents.yaml"
    before = ClaimsCrew("HM-HOME-001", Script(), sample_library, config)
    text = agents.read_text(encoding="utf-8")
    role = before.agents_config["policy"]["role"]
    edited = role[:-1] + ("X" if role[-1] != "X" else "Y")  # same length
    stat = agents.stat()
    agents.write_text(text.replace(role, edited, 1), encoding="utf-8")
    os.utime(agents, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same time stamp
    after = ClaimsCrew("HM-HOME-001", Script(), sample_library, config)
    assert after.agents_config["policy"]["role"] == edited
    assert after.policy().role == edited  # the agent CrewAI runs, not only the dictionary


def test_crews_never_share_what_crewbase_writes_into_the_config(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    config = config_copy(tmp_path)
    one = ClaimsCrew("HM-HOME-001", Script(), sample_library, config)
    two = ClaimsCrew("HM-HOME-001", Script(), sample_library, config)
    # CrewBase puts each crew's own Agent objects into its task configs.
    assert one.tasks_config["policy_task"]["agent"] is not two.tasks_config["policy_task"]["agent"]
    one.agents_config["fraud"]["goal"] = "changed in one crew"
    three = ClaimsCrew("HM-HOME-001", Script(), sample_library, config)
    assert two.agents_config["fraud"]["goal"] != "changed in one crew"
    assert three.agents_config["fraud"]["goal"] != "changed in one crew"


def test_the_yaml_reads_as_crewai_reads_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    crlf = tmp_path / "crlf.yaml"
    crlf.write_bytes(b"intake:\r\n  role: >\r\n    Reads\r\n    claims\r\n")
    assert yaml_cache.load_yaml(crlf) == {"intake": {"role": "Reads claims\n"}}
    listed = tmp_path / "list.yaml"
    listed.write_text("- not a mapping\n", encoding="utf-8")
    assert yaml_cache.load_yaml(listed) == {}  # as CrewBase: anything but a mapping is empty
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    assert yaml_cache.load_yaml(empty) == {}
    with pytest.raises(FileNotFoundError):
        yaml_cache.load_yaml(tmp_path / "missing.yaml")
    assert "File not found" in caplog.text


# --- the executor's state --------------------------------------------------------------------


def test_an_executor_declares_no_state_class_and_runs_crewais_definition() -> None:
    assert declared_states(AgentExecutor) == 1  # CrewAI's own: the class ClaimsAgentExecutor skips
    assert declared_states(ClaimsAgentExecutor) == 0
    executor = ClaimsAgentExecutor()
    assert type(executor.state) is AgentExecutorState  # what AgentExecutor ends up with too
    assert type(AgentExecutor().state) is AgentExecutorState
    assert executor._definition is AgentExecutor.flow_definition()
    assert set(executor._methods) == set(AgentExecutor()._methods) != set()


def test_the_crews_agents_run_in_the_lighter_executor(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script = water_script()
    run = settings(sample_library, script, tmp_path)
    crew_agents: list[Any] = []
    built = ClaimsCrew._agent

    def keep(self: ClaimsCrew, name: str, tools: list[Any] | None = None) -> Any:
        agent = built(self, name, tools)
        crew_agents.append(agent)
        return agent

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ClaimsCrew, "_agent", keep)
        record = review_claim(load_claim(WATER_CLAIM), run)
    assert record.status == "reviewed"
    ran = [a for a in crew_agents if a.agent_executor is not None]
    assert len(ran) >= 3  # intake, policy and fraud at least
    assert all(type(a.agent_executor) is ClaimsAgentExecutor for a in ran)
    assert isinstance(record.policy, Claim) and isinstance(record.fraud, Claim)
    assert record.policy.source_checked  # the tool ledger saw policy's look-up in this executor


# --- pydantic's generic classes --------------------------------------------------------------


class Box(BaseModel, Generic[T]):
    item: T


def in_a_new_thread(work: Callable[[], bool]) -> bool:
    """`work` in a thread of its own, which starts from an empty context as a claim's does."""
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(work()))
    thread.start()
    thread.join()
    return result[0]


def copies_share_box_int(share: bool) -> bool:
    if share:
        share_generic_models()
    made = [contextvars.copy_context().run(lambda: Box[int]) for _ in range(2)]
    return made[0] is made[1]


def test_copies_of_a_claims_context_share_pydantics_generic_classes() -> None:
    # Pydantic keeps one cache per context: copies made before it exists each build their own.
    assert not in_a_new_thread(lambda: copies_share_box_int(share=False))
    assert in_a_new_thread(lambda: copies_share_box_int(share=True))


def test_a_freed_crew_leaves_nothing_memoised_for_a_new_crew_with_its_id(
    sample_library: PolicyLibrary,
) -> None:
    # CrewBase memoises @agent/@task results by id(crew) process-wide: left there, a later crew
    # given the same id would get this claim's agents, with this policy's lookup tool.
    from crewai.project.utils import cache

    crew = ClaimsCrew("HM-HOME-001", Script(), sample_library)
    crew.policy()
    crew.policy_task()
    marker = f"('__instance__', {id(crew)})"
    assert any(marker in key for key in cache._cache)
    del crew
    gc.collect()
    ClaimsCrew("HM-HOME-001", Script(), sample_library)  # a new crew, which may get the same id
    assert not any(marker in key for key in cache._cache)


def test_a_crew_freed_while_crewais_cache_is_locked_does_not_wait_for_the_lock(
    sample_library: PolicyLibrary,
) -> None:
    # The collector can free a crew in any thread, even inside CacheHandler.add, which holds
    # the cache's lock (not reentrant): the crew's going must not need that lock.
    from crewai.project.utils import cache

    crew = ClaimsCrew("HM-HOME-001", Script(), sample_library)
    crew.policy()

    def free_under_the_lock() -> None:
        nonlocal crew
        with cache._lock.w_locked():
            del crew
            gc.collect()

    thread = threading.Thread(target=free_under_the_lock, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "freeing a crew waited for CrewAI's cache lock"
