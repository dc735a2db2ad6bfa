"""Tokens per task and the stages of a review: counted from CrewAI's events, stored, shown.

The tests that store what was counted run on SQLite and on PostgreSQL (the `engine` fixture).

Each task's prompt and completion tokens come from the LLMCallCompletedEvent that names it, for our
in-process models and for CrewAI's own OpenAI client (against tests/support/openai_server.py, which
reports usage as the words it received and sent). Tasks that run at once are each charged their own
calls, whatever order the calls end in.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import inspect

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.crew.ledger import ToolLedger
from claims_crew.llms.scripted import ScriptedLLM, final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord, TaskUsage
from claims_crew.run.batch import run_batch
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    KNOWN_START,
    POLICY_COVERED,
    QUESTION_TAIL,
    Script,
    settings,
    start_date_answer,
    water_claim_saying_when,
)
from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, StartServer, Status
from tests.support.provider import (
    CrewScript,
    agent_of,
    answer,
    point_model_at,
    provider_settings,
    water_claims,
)
from tests.support.report import known_store
from tests.support.store import back_to

RULING = {
    "choice": "policy",
    "reason": "A leaking joint found the day after is a sudden discharge; 7.1 needs weeks.",
    "evidence": ["4.2(b)"],
}


def words(text: str) -> int:
    return len(text.split())


def prompt_words(messages: list[dict[str, Any]]) -> int:
    return sum(words(str(m.get("content", ""))) for m in messages)


def test_overlapping_tasks_are_each_charged_their_own_calls() -> None:
    """Policy's call starts first and ends last, on one model shared by both tasks: charging
    calls by the order they start or end, or by the model, would swap or merge the counts."""
    policy = SimpleNamespace(id="t-policy", name="policy_task", description="")
    fraud = SimpleNamespace(id="t-fraud", name="fraud_task", description="")
    elsewhere = SimpleNamespace(id="t-other", name="policy_task", description="")
    policy_in_flight, fraud_done = threading.Event(), threading.Event()

    def respond(messages: list[dict[str, Any]]) -> str:
        if "policy" in str(messages[0]["content"]):
            policy_in_flight.set()
            assert fraud_done.wait(10)
            return "covered under clause four two"  # 5 words
        return "not covered"  # 2 words

    llm = ScriptedLLM(responder=respond, model="shared")
    ledger = ToolLedger({"t-policy", "t-fraud"})
    with ledger.listening():
        slow = threading.Thread(
            target=lambda: llm.call(
                [{"role": "user", "content": "policy " + "word " * 9}], from_task=policy
            )
        )
        slow.start()
        assert policy_in_flight.wait(10)
        llm.call([{"role": "user", "content": "fraud two words"}], from_task=fraud)
        fraud_done.set()
        slow.join(10)
        # Another claim's crew, running beside this one: not this claim's cost.
        llm.call([{"role": "user", "content": "fraud of another claim"}], from_task=elsewhere)

    assert ledger.usage == {
        "policy_task": TaskUsage(prompt=10, completion=5, calls=1),
        "fraud_task": TaskUsage(prompt=3, completion=2, calls=1),
    }
    assert ledger.tokens == {"policy_task": 15, "fraud_task": 5}
    assert ledger.model_calls == {"policy_task": 1, "fraud_task": 1}


def dispute_script() -> tuple[Script, dict[str, list[str]]]:
    answers = {
        "intake": [final(KNOWN_START)],
        "policy": [lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        "fraud": [lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        "adjudicator": [final(RULING)],
    }
    return Script(**{agent: list(a) for agent, a in answers.items()}), answers


@pytest.mark.usefixtures("engine")
def test_a_review_records_each_tasks_tokens_and_its_stages(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    script, answers = dispute_script()
    run = settings(sample_library, script, tmp_path)
    loaded = load_claim(water_claim_saying_when(tmp_path / "inbox"))
    record = review_claim(loaded, run)
    assert record.resolution is not None and record.resolution.outcome == "ADJUDICATED"

    for agent, task in (
        ("intake", "intake_task"),
        ("policy", "policy_task"),
        ("fraud", "fraud_task"),
        ("adjudicator", "adjudicate_task"),
    ):
        calls = script(agent).calls
        assert record.tokens_by_task[task] == TaskUsage(
            prompt=sum(prompt_words(m) for m in calls),
            completion=sum(words(a) for a in answers[agent][: len(calls)]),
            calls=len(calls),
        ), task
        assert record.tokens[task] == record.tokens_by_task[task].total
    assert set(record.tokens_by_task) == {
        "intake_task",
        "policy_task",
        "fraud_task",
        "adjudicate_task",
    }

    stages = record.stages
    assert list(stages) == ["crew", "resolver", "adjudicator"]
    moments = [record.started_at]
    for stage in stages.values():
        moments += [stage.started_at, stage.finished_at]
    moments.append(record.finished_at)
    assert moments == sorted(moments)

    store = Store()
    store.record(record, None, loaded)
    back = store.claim_record(record.claim_id)
    assert back is not None
    assert back.tokens_by_task == record.tokens_by_task and back.stages == record.stages


@pytest.mark.usefixtures("engine")
def test_review_show_lists_tokens_per_task(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    known_store(sample_library, tmp_path / "claims")
    detail = json.loads(CliRunner().invoke(main, ["review", "show", "R04", "--json"]).output)
    assert detail["tokens_by_task"]["policy_task"] == {"prompt": 160, "completion": 40, "calls": 2}
    assert detail["stage_seconds"] == {"crew": 1.5, "resolver": 0.25}
    shown = CliRunner().invoke(main, ["review", "show", "R04"], env={"COLUMNS": "160"})
    assert shown.exit_code == 0, shown.output
    assert "Model calls and tokens (crew 1.50 s, resolver 0.25 s)" in shown.output
    line = next(x for x in shown.output.splitlines() if "policy_task" in x)
    assert [c.strip() for c in line.split("│")][1:5] == ["policy_task", "2", "160", "40"]


@pytest.mark.usefixtures("engine")
def test_an_old_store_upgrades_in_place_and_its_audit_still_verifies(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    store = known_store(sample_library, tmp_path / "claims")
    # The store as it was before tokens per task and stages were kept.
    back_to(store, "0006_sign_in_attempts")
    with store.read() as conn:
        assert "stages" not in {c["name"] for c in inspect(conn).get_columns("attempts")}
    upgraded = Store()
    record = upgraded.claim_record("R01")
    assert record is not None and record.tokens_by_task == {} and record.stages == {}
    assert record.tokens["policy_task"] == 200  # the per-claim totals it had are kept

    verified = CliRunner().invoke(main, ["audit", "verify"])
    assert verified.exit_code == 0, verified.output
    report = json.loads(CliRunner().invoke(main, ["report", "--json"]).output)
    assert report["overall"]["claims"] == 13
    assert [t["claims"] for t in report["time_per_level"]][:3] == [0, 0, 0]


def reviewed_over(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, library: PolicyLibrary, inbox: Path
) -> tuple[ClaimRecord, Store]:
    """A copy of C-1042 named after `inbox`'s folder, reviewed by CrewAI's own OpenAI client
    against the scripted server: its record, and the store it is in."""
    point_model_at(server, monkeypatch)
    run = provider_settings(library, Store())
    (item,) = run_batch(water_claims(inbox, inbox.name), run)
    record = item.record
    assert record is not None and record.status == "reviewed", record and record.error
    return record, run.store


@pytest.mark.usefixtures("engine")
def test_the_provider_reports_tokens_per_task(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """CrewAI's OpenAI client: each task's tokens are the usage the server sent for its calls.
    The copy of C-1042 never says when the damage started, so intake's start date is not borne
    out, and the conflict asks intake the targeted question: a task of its own, charged apart."""
    replies: dict[str, dict[str, Any]] = {
        "intake_task": KNOWN_START,
        "targeted_question_task": start_date_answer(None),
        "policy_task": POLICY_COVERED,
        "fraud_task": FRAUD_EXCLUDED,
    }

    def task_of(request: ChatRequest) -> str:
        agent = agent_of(request)
        if agent == "intake" and QUESTION_TAIL in request.text:
            return "targeted_question_task"
        return f"{agent}_task"

    def intake(request: ChatRequest) -> Reply:
        return answer(replies[task_of(request)])

    script = CrewScript().set("C-7", "intake", intake)
    for agent in ("policy", "fraud"):
        script.set("C-7", agent, answer(replies[f"{agent}_task"]))
    server = openai_server(script)
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "60")
    record, store = reviewed_over(server, monkeypatch, sample_library, tmp_path / "C-7")

    assert set(record.tokens_by_task) == set(replies)
    for task, payload in replies.items():
        requests = [r for r in server.requests if task_of(r) == task]
        assert requests, task
        assert record.tokens_by_task[task] == TaskUsage(
            prompt=sum(words(r.text) for r in requests),
            completion=len(requests) * words(json.dumps(payload)),
            calls=len(requests),
        ), task
    stored = store.claim_record("C-7")
    assert stored is not None and stored.tokens_by_task == record.tokens_by_task


def test_a_call_the_provider_failed_is_counted_once_in_its_task(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """The targeted question gets a 500: the provider received the call, so it counts, once
    (CrewAI reports a failed call twice), with no tokens, since none were reported."""

    def intake(request: ChatRequest) -> Reply:
        if QUESTION_TAIL in request.text:
            return Status(500)
        return answer(KNOWN_START)

    script = CrewScript().set("C-8", "intake", intake)
    for agent, payload in (("policy", POLICY_COVERED), ("fraud", FRAUD_EXCLUDED)):
        script.set("C-8", agent, answer(payload))
    server = openai_server(script)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    record, _store = reviewed_over(server, monkeypatch, sample_library, tmp_path / "C-8")
    asked = [r for r in server.requests if QUESTION_TAIL in r.text]
    assert len(asked) == 1
    assert record.tokens_by_task["targeted_question_task"] == TaskUsage(calls=1)
    assert sum(record.model_calls.values()) == len(server.requests)
