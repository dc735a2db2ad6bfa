"""Policy and fraud side by side, seen from the provider: CrewAI's own OpenAI client against the
scripted server, whose own log says when each request arrived and when it was answered.

The server holds the first call of each reviewer until the other reviewer's first call has
arrived too (or a few seconds have passed): run one after the other, the two never meet there,
so a review that does not overlap them fails these tests instead of passing slowly.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from crewai import Task

from claims_crew.crew.crew import ClaimsCrew
from claims_crew.crew.waves import waves
from claims_crew.errors import ConfigError
from claims_crew.llms.select import default_llm_factory
from claims_crew.models import Claim
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord
from claims_crew.run.batch import run_batch
from claims_crew.run.context import RunContext, build_context
from claims_crew.run.routine import BatchItem
from claims_crew.store import Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    POLICY_COVERED,
    Script,
    config_with,
    targeted_config,
)
from tests.support.openai_server import (
    ChatRequest,
    Exchange,
    Hang,
    OpenAIServer,
    Reply,
    StartServer,
    ToolCall,
)
from tests.support.paths import ROOT
from tests.support.provider import (
    DEADLINE_S,
    CrewScript,
    agent_of,
    answer,
    claim_of,
    look_up_then,
    point_model_at,
    water_claims,
    water_intake,
)
from tests.support.sample_inbox import Meeting, inbox_script

INBOX = ROOT / "claims" / "inbox"
# Far beyond what these runs need: a guard that turns "never returns" into a failure.
GUARD_S = 60.0


def settings_for(library: PolicyLibrary, tmp_path: Path, config: Path | None = None) -> RunContext:
    folder = config or ROOT / "config"
    return build_context(
        library=library,
        llm_for=default_llm_factory(folder),
        config_dir=folder,
        store=Store(tmp_path / "claims.sqlite"),
    )


def records(items: list[BatchItem]) -> dict[str, ClaimRecord]:
    return {i.record.claim_id: i.record for i in items if i.record is not None}


def of(server: OpenAIServer, claim_id: str, agent: str) -> list[Exchange]:
    return [
        e
        for e in server.exchanges
        if claim_of(e.request) == claim_id and agent_of(e.request) == agent
    ]


def overlapped(server: OpenAIServer, claim_id: str) -> bool:
    policy, fraud = of(server, claim_id, "policy"), of(server, claim_id, "fraud")
    return any(p.overlaps(f) for p in policy for f in fraud)


def test_the_sample_inbox_runs_policy_and_fraud_side_by_side(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    server = openai_server(inbox_script(Meeting()), latency_s=0.05)
    point_model_at(server, monkeypatch)
    paths = sorted(p for p in INBOX.iterdir() if p.suffix in {".json", ".yaml"})
    # With the targeted question on, as C-1048 needs to show it.
    run = settings_for(sample_library, tmp_path, targeted_config(tmp_path))
    done = records(run_batch(paths, run, concurrency=2))

    assert sorted(done) == sorted(p.stem for p in paths)
    assert all(r.status == "reviewed" for r in done.values()), {
        c: r.error for c, r in done.items() if r.error
    }
    # The server's own log: every claim's policy and fraud calls were open at the same time.
    assert [c for c in sorted(done) if not overlapped(server, c)] == []
    outcomes = {
        c: (r.resolution.outcome, r.resolution.answer) for c, r in done.items() if r.resolution
    }
    assert outcomes == {
        "C-1042": ("ESCALATED", None),
        "C-1043": ("ADJUDICATED", "covered"),
        "C-1044": ("ACCEPTED", "covered"),
        "C-1045": ("ACCEPTED", "not_covered"),
        "C-1046": ("ACCEPTED", "covered"),
        # Its description tells the AI reviewer to approve it: a person decides, whatever
        # the agents answered (instructions_in_claim).
        "C-1047": ("ESCALATED", None),
        "C-1048": ("ADJUDICATED", "not_covered"),
        "C-1049": ("ADJUDICATED", "covered"),
        "C-1050": ("ACCEPTED", "covered"),
        "C-1051": ("ACCEPTED", "covered"),
        # Arrives as an e-mail: its cause is in the body, its start date in the PDF it carries.
        "C-1052": ("ACCEPTED", "covered"),
        # On HM-25-00417: both quote 4.2(b) as HM-E-07 narrowed it to appliances under 10
        # years old; a grant cannot carry not_covered (kind_mismatch), so a person decides.
        "C-1053": ("ESCALATED", None),
        # Denied on the exclusion HM-E-09 added from 2025-07-01.
        "C-1054": ("ACCEPTED", "not_covered"),
        "C-2001": ("ESCALATED", None),
        "C-2002": ("ESCALATED", None),
        "C-2003": ("ESCALATED", None),
        "C-2004": ("ESCALATED", None),
        # Denied on the ride-sharing exclusion MA-E-12 added mid-term, from 2025-09-01.
        "C-2005": ("ACCEPTED", "not_covered"),
        "C-3001": ("ESCALATED", None),
    }
    # The adjudicator was asked once per dispute, after both reviewers had answered; C-1048's
    # became one once the targeted question found when its damage started.
    asked = [e for e in server.exchanges if agent_of(e.request) == "adjudicator"]
    assert sorted(claim_of(e.request) for e in asked) == ["C-1043", "C-1048", "C-1049"]
    for ruling in asked:
        claim_id = claim_of(ruling.request)
        reviews = of(server, claim_id, "policy") + of(server, claim_id, "fraud")
        assert all(e.finished is not None and e.finished <= ruling.arrived for e in reviews)
    targeted = done["C-1048"].resolution and done["C-1048"].resolution.targeted
    assert targeted and targeted.verified and targeted.settled
    assert done["C-1043"].resolution is not None
    assert done["C-1043"].resolution.rule == "adjudicator"
    # Each task's calls and tokens, from CrewAI's events, as the server counted them.
    for claim_id, record in done.items():
        calls = {"intake_task": 1, "policy_task": 2, "fraud_task": 2}
        if claim_id in ("C-1042", "C-1048", "C-1049"):
            calls["targeted_question_task"] = 1
        if claim_id in ("C-1043", "C-1048", "C-1049"):
            calls["adjudicate_task"] = 1
        assert record.model_calls == calls, claim_id
        usage = record.tokens_by_task
        assert {t: u.calls for t, u in usage.items()} == calls, claim_id
        assert all(u.prompt > 0 and u.completion > 0 for u in usage.values()), claim_id
    policy_sent = of(server, "C-1044", "policy")
    # The server counts a prompt's words as its tokens.
    assert done["C-1044"].tokens_by_task["policy_task"].prompt == sum(
        len(e.request.text.split()) for e in policy_sent
    )


def test_lookups_made_at_the_same_time_are_credited_to_their_own_task(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """Both reviewers ask for their lookup at the same moment; each task's ledger holds its own
    clause only. Fraud looks up 7.1 and cites it; policy looks up 7.1's neighbour 4.2(b)."""
    meet = Meeting()
    script = CrewScript()
    for claim_id in ("S-1", "S-2"):
        script.set(claim_id, "intake", water_intake)
        script.set(claim_id, "policy", meet(look_up_then("4.2(b)", POLICY_COVERED)))
        script.set(claim_id, "fraud", meet(look_up_then("7.1", FRAUD_EXCLUDED)))
    server = openai_server(script)
    point_model_at(server, monkeypatch)
    paths = water_claims(tmp_path / "inbox", "S-1", "S-2")
    done = records(run_batch(paths, settings_for(sample_library, tmp_path), concurrency=2))

    for claim_id, record in done.items():
        assert record.status == "reviewed", record.error
        assert overlapped(server, claim_id)
        by_task = {e.task_name: e.returned_clause_ids for e in record.ledger}
        assert by_task == {"policy_task": ["4.2(b)"], "fraud_task": ["7.1"]}
        roles = {e.task_name: e.agent_role for e in record.ledger}
        assert roles["policy_task"] != roles["fraud_task"]
        assert isinstance(record.policy, Claim) and isinstance(record.fraud, Claim)
        assert record.policy.source_checked and record.fraud.source_checked


@pytest.mark.usefixtures("warm_crew")  # the deadline holds a warm claim's way to fraud's call
def test_a_hung_reviewer_stops_the_claim_at_its_deadline_and_no_call_follows(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """Policy hangs while fraud goes on: the claim is failed at its deadline, the batch goes on,
    and fraud's next call, due after the deadline, is refused before it is sent."""
    release = threading.Event()

    def fraud_late(request: ChatRequest) -> Reply:
        if not request.tool_results:
            release.wait(GUARD_S)  # answered only after the claim's deadline
            return ToolCall("policy_lookup", {"policy_id": "HM-HOME-001", "clause_id": "7.1"})
        return answer(FRAUD_EXCLUDED)

    script = CrewScript()
    script.set("H-1", "intake", water_intake)
    script.set("H-1", "policy", Hang())
    script.set("H-1", "fraud", fraud_late)
    script.set("H-2", "intake", water_intake)
    script.set("H-2", "policy", look_up_then("4.2(b)", POLICY_COVERED))
    script.set("H-2", "fraud", look_up_then("7.1", FRAUD_EXCLUDED))
    server = openai_server(script, hang_limit_s=20)
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_TIMEOUT", "30")
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", str(DEADLINE_S))
    paths = water_claims(tmp_path / "inbox", "H-1", "H-2")
    earlier = set(threading.enumerate())
    done = records(run_batch(paths, settings_for(sample_library, tmp_path), concurrency=1))

    assert done["H-1"].status == "failed" and done["H-1"].error is not None
    assert done["H-1"].error.code == "timeout"
    assert done["H-2"].status == "reviewed"
    # H-1's fraud task, still waiting on its first call (H-2's ended with H-2).
    (fraud,) = [t for t in set(threading.enumerate()) - earlier if t.name == "crew fraud_task"]
    assert len(of(server, "H-1", "fraud")) == 1
    release.set()  # fraud's first call is answered now, past H-1's deadline
    fraud.join(GUARD_S)  # it looks the clause up; its next call is refused, and the task ends
    assert not fraud.is_alive()
    assert len(of(server, "H-1", "fraud")) == 1


def test_a_task_waits_only_for_the_tasks_in_its_context(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    crew = ClaimsCrew("HM-HOME-001", Script(), sample_library, ROOT / "config")
    assert [[t.name for t in w] for w in waves(crew.review_tasks())] == [
        ["intake_task"],
        ["policy_task", "fraud_task"],
    ]
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    config = config_with(tasks, "fraud", "goal", "Check claim {claim_id}.")
    text = (config / "tasks.yaml").read_text(encoding="utf-8")
    (config / "tasks.yaml").write_text(
        text.replace("  agent: fraud\n  context: [intake_task]\n", "  agent: fraud\n"),
        encoding="utf-8",
    )
    crew = ClaimsCrew("HM-HOME-001", Script(), sample_library, config)
    # No context: like CrewAI's sequential process, it is given every task before it.
    assert [[t.name for t in w] for w in waves(crew.review_tasks())] == [
        ["intake_task"],
        ["policy_task"],
        ["fraud_task"],
    ]
    assert [t.name for t in crew.fraud_task().context] == ["intake_task", "policy_task"]


def test_a_context_naming_a_later_task_is_a_config_error() -> None:
    later = Task(description="second", expected_output="x", name="fraud_task")
    first = Task(description="first", expected_output="x", name="policy_task", context=[later])
    with pytest.raises(ConfigError, match="policy_task's context names fraud_task"):
        waves([first, later])
