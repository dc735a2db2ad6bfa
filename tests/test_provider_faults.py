"""The provider path under faults: CrewAI's own clients against the scripted server.

MODEL and MODEL_BASE_URL point the real pipeline at tests/support/openai_server.py; the tests
that take `provider_server` run once per wire format (OpenAI, Anthropic, Gemini). One claim of
each batch meets a fault, and the others must be decided all the same. Limits are set small
through the environment, as a user would, so that a hang costs seconds.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from rich.console import Console

from claims_crew.cli.run import review_inbox
from claims_crew.models import Claim, ParseFailure
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord
from claims_crew.run.batch import run_batch
from claims_crew.run.routine import BatchItem
from claims_crew.store import Store
from tests.support.crew import INTAKE_WATER, POLICY_COVERED, QUESTION_TAIL
from tests.support.openai_server import (
    BadJSON,
    ChatRequest,
    Hang,
    Reply,
    StartServer,
    Status,
    Text,
    ToolCall,
    Truncated,
)
from tests.support.paths import ROOT
from tests.support.provider import (
    DEADLINE_S,
    CrewScript,
    agent_of,
    answer,
    claim_of,
    point_model_at,
    provider_settings,
    water_claims,
    water_intake,
    water_replies,
    wire_name,
)

T = TypeVar("T")
# Far beyond what these runs need, and far below what a hung provider would take: a guard that
# turns "never returns" into a failure instead of a stuck test run.
GUARD_S = 60.0


def finishes(work: Callable[[], T], within_s: float = GUARD_S) -> T:
    """work()'s result; fails the test if it has not returned within `within_s`."""
    box: list[T] = []
    thread = threading.Thread(target=lambda: box.append(work()), daemon=True)
    thread.start()
    thread.join(within_s)
    assert box, f"still running after {within_s:g} s"
    return box[0]


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    def set_limits(timeout: float = 30, retries: int = 0, deadline: float = 0) -> None:
        monkeypatch.setenv("CLAIMS_CREW_MODEL_TIMEOUT", str(timeout))
        monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", str(retries))
        monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", str(deadline))

    return set_limits


def run(
    paths: list[Path], library: PolicyLibrary, store: Store, concurrency: int = 1
) -> list[BatchItem]:
    settings = provider_settings(library, store)
    return finishes(lambda: run_batch(paths, settings, concurrency))


def records(items: list[BatchItem]) -> dict[str, ClaimRecord]:
    return {item.record.claim_id: item.record for item in items if item.record is not None}


def sent(server_requests: list[ChatRequest], claim_id: str, agent: str) -> list[ChatRequest]:
    return [r for r in server_requests if claim_of(r) == claim_id and agent_of(r) == agent]


def test_a_hanging_claim_times_out_and_the_batch_goes_on(
    provider_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    limits: Callable[..., None],
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    script = CrewScript()
    for claim_id in ("C-1", "C-2", "C-3"):
        water_replies(script, claim_id)
    script.set("C-1", "intake", Hang())  # first in line, at concurrency 1
    server = provider_server(script)
    point_model_at(server, monkeypatch)
    # Long enough for a good claim's five scripted calls on a busy machine.
    limits(timeout=30, retries=0, deadline=8)
    paths = water_claims(tmp_path / "inbox", "C-1", "C-2", "C-3")
    store = Store(tmp_path / "claims.sqlite")

    done = records(run(paths, sample_library, store))

    assert done["C-1"].status == "failed" and done["C-1"].error is not None
    assert done["C-1"].error.code == "timeout"
    assert "CLAIMS_CREW_CLAIM_DEADLINE" in done["C-1"].error.message
    assert [done[c].status for c in ("C-2", "C-3")] == ["reviewed", "reviewed"]
    assert sorted(d.claim_id for d in store.decisions()) == ["C-2", "C-3"]

    # The next run retries the claim that timed out, and only that one.
    script.set("C-1", "intake", water_intake)
    before = len(server.calls)
    again = records(run(paths, sample_library, store))
    assert again["C-1"].status == "reviewed"
    assert sorted(d.claim_id for d in store.decisions()) == ["C-1", "C-2", "C-3"]
    assert {claim_of(r) for r in server.calls[before:]} == {"C-1"}
    assert [a.error.code if a.error else None for a in store.attempts("C-1")] == ["timeout", None]


@pytest.mark.usefixtures("warm_crew")  # the deadline holds a warm claim's way to intake's call
def test_an_abandoned_claim_calls_no_model_and_writes_nothing_later(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    limits: Callable[..., None],
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """Intake's answer arrives after the deadline: the crew would go on to the policy agent and
    record a decision; instead its next model call is refused and the store keeps the timeout."""
    late = threading.Event()
    answered = threading.Event()

    def late_intake(_request: ChatRequest) -> Reply:
        late.wait(GUARD_S)
        answered.set()
        return answer(INTAKE_WATER)

    script = water_replies(CrewScript(), "C-1").set("C-1", "intake", late_intake)
    server = openai_server(script)
    point_model_at(server, monkeypatch)
    limits(timeout=30, retries=0, deadline=DEADLINE_S)
    paths = water_claims(tmp_path / "inbox", "C-1")
    store = Store(tmp_path / "claims.sqlite")

    earlier = set(threading.enumerate())  # an earlier test's review may still be ending
    timed_out = records(run(paths, sample_library, store))["C-1"]
    assert timed_out.error is not None and timed_out.error.code == "timeout"
    abandoned = [t for t in set(threading.enumerate()) - earlier if t.name == "review C-1"]
    late.set()  # the provider answers now, too late
    assert answered.wait(GUARD_S)
    assert len(abandoned) == 1
    abandoned[0].join(GUARD_S)
    assert not abandoned[0].is_alive()

    assert sent(server.requests, "C-1", "policy") == []
    assert sent(server.requests, "C-1", "fraud") == []
    assert [a.error.code if a.error else None for a in store.attempts("C-1")] == ["timeout"]
    assert store.decisions() == []


def test_a_call_that_never_returns_gives_up_after_the_timeout_and_its_retries(
    provider_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    limits: Callable[..., None],
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    """No claim deadline at all: the per-call timeout alone ends the claim, after exactly one
    retry (the client's; CrewAI does not run the task again on top)."""
    script = water_replies(water_replies(CrewScript(), "C-1"), "C-2").set("C-1", "intake", Hang())
    server = provider_server(script)
    point_model_at(server, monkeypatch)
    # The timeout bounds C-2's good calls too, so it leaves a busy machine room to answer them;
    # Hang never answers, however long the wait.
    limits(timeout=5, retries=1, deadline=0)
    paths = water_claims(tmp_path / "inbox", "C-1", "C-2")

    done = records(run(paths, sample_library, Store(tmp_path / "claims.sqlite")))

    assert done["C-1"].status == "failed" and done["C-1"].error is not None
    assert done["C-1"].error.code == "timeout"
    # google-genai retries a 429 or a 5xx, never a call that timed out.
    assert len(sent(server.requests, "C-1", "intake")) == (
        1 if wire_name(server) == "gemini" else 2
    )
    assert done["C-2"].status == "reviewed"


def _unknown_tool_then_answer(request: ChatRequest) -> Reply:
    if request.tool_results:
        return answer(POLICY_COVERED)
    return ToolCall("no_such_tool", {"clause_id": "4.2(b)"})


FAULTS: list[tuple[str, Callable[[ChatRequest], Reply] | Reply, int, str]] = [
    ("500", Status(500, "upstream exploded"), 2, "crew_failed"),
    # A 200 the client cannot read is not retried.
    ("bad JSON", BadJSON(), 1, "malformed_response"),
]


@pytest.mark.parametrize(("fault", "reply", "calls", "code"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_failing_provider_fails_one_claim_within_the_retry_budget(
    provider_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    limits: Callable[..., None],
    sample_library: PolicyLibrary,
    tmp_path: Path,
    fault: str,
    reply: Reply,
    calls: int,
    code: str,
) -> None:
    script = water_replies(water_replies(CrewScript(), "C-1"), "C-2").set("C-1", "policy", reply)
    server = provider_server(script)
    point_model_at(server, monkeypatch)
    limits(timeout=10, retries=1, deadline=30)
    paths = water_claims(tmp_path / "inbox", "C-1", "C-2")
    store = Store(tmp_path / "claims.sqlite")

    done = records(run(paths, sample_library, store))

    assert done["C-1"].status == "failed" and done["C-1"].error is not None
    assert done["C-1"].error.code == code
    # One call and one retry, by the client: not three times that by CrewAI's task retries.
    assert len(sent(server.requests, "C-1", "policy")) == calls
    assert done["C-2"].status == "reviewed"
    assert [d.claim_id for d in store.decisions()] == ["C-2"]


def test_a_truncated_response_is_named_as_the_provider_s_malformed_answer(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    limits: Callable[..., None],
    tmp_path: Path,
) -> None:
    """The policy agent's answer arrives cut off in the middle of its text: the record and the
    run's table say the provider sent a malformed response, and the next run retries it."""
    script = water_replies(water_replies(CrewScript(), "C-1"), "C-2")
    script.set("C-1", "policy", Truncated(answer(POLICY_COVERED).content))
    server = openai_server(script)
    point_model_at(server, monkeypatch)
    limits(timeout=10, retries=1, deadline=30)
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    inbox = tmp_path / "inbox"
    water_claims(inbox, "C-1", "C-2")
    console = Console(record=True, width=400)

    assert finishes(lambda: review_inbox(inbox, 1, console)) == 1

    [attempt] = Store().attempts("C-1")
    assert attempt.error is not None and attempt.error.code == "malformed_response"
    assert attempt.error.message.startswith("the provider sent a malformed response")
    assert "Unterminated string" in attempt.error.message
    assert "JSONDecodeError" not in attempt.error.message
    shown = console.export_text()
    assert "malformed_response: the provider sent a malformed response" in shown
    assert [d.claim_id for d in Store().decisions()] == ["C-2"]
    assert len(sent(server.requests, "C-1", "policy")) == 1  # a 200 is not retried


def test_a_429_is_retried_after_its_retry_after(
    provider_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    limits: Callable[..., None],
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    script = water_replies(CrewScript(), "C-1")
    script.set("C-1", "intake", Status(429, "slow down", retry_after=1.5), water_intake)
    server = provider_server(script)
    point_model_at(server, monkeypatch)
    limits(timeout=10, retries=1, deadline=30)

    done = records(
        run(water_claims(tmp_path / "inbox", "C-1"), sample_library, Store(tmp_path / "s.sqlite"))
    )

    assert done["C-1"].status == "reviewed"
    first, second, asked = sent(server.requests, "C-1", "intake")
    # The client's own retry: the same request again, not a new turn of the agent's loop.
    assert second.raw == first.raw
    if wire_name(server) != "gemini":  # google-genai keeps its own backoff: no Retry-After
        # The client waited as long as the server asked, not its own first backoff (under a
        # second).
        assert second.at - first.at >= 1.5
    assert QUESTION_TAIL in asked.text  # then the conflict's targeted question, answered once


def test_prose_is_a_parse_error_and_an_unknown_tool_does_not_crash(
    provider_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    limits: Callable[..., None],
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    script = water_replies(water_replies(CrewScript(), "C-1"), "C-2")
    script.set("C-1", "policy", Text("Having read the policy, I think this is covered."))
    script.set("C-2", "policy", _unknown_tool_then_answer)
    server = provider_server(script)
    point_model_at(server, monkeypatch)
    limits(timeout=10, retries=0, deadline=30)
    paths = water_claims(tmp_path / "inbox", "C-1", "C-2")

    done = records(run(paths, sample_library, Store(tmp_path / "claims.sqlite")))

    prose = done["C-1"]
    assert prose.status == "reviewed" and isinstance(prose.policy, ParseFailure)
    assert prose.resolution is not None and "parse_error" in prose.resolution.reason_codes
    unknown = done["C-2"]
    assert unknown.status == "reviewed" and isinstance(unknown.policy, Claim)
    assert unknown.policy.source_checked is False  # no lookup ever returned 4.2(b) to it
    assert not any(entry.returned_clause_ids for entry in unknown.ledger)
    told = sent(server.requests, "C-2", "policy")[-1].tool_results
    assert len(told) == 1 and "not found" in told[0].lower()  # CrewAI said so, and went on


# A fresh process imports CrewAI (4.5-10 s on two busy cores) before its first claim: a guard
# for a stuck process, many times what a run takes, and a hang the server holds for longer still,
# so a run that waited on the held call would meet the guard.
PROCESS_GUARD_S = 300.0


@pytest.mark.usefixtures("warm_index")
def test_claims_crew_run_ends_at_the_deadline_when_the_provider_never_answers(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A fresh `claims-crew run`, as a user starts it: the provider holds C-1's call open for
    good, and the process still ends, with its table, exit code 1 and the other claims decided;
    the next run decides C-1 once the provider answers.

    One claim at a time, the silent one first: C-1 pays the new process's first-claim costs
    before it waits, and C-2's deadline starts once C-1's has passed, so C-2 needs only a warm
    claim's time (0.3 s on an idle two-core machine), not a cold one's beside the hang."""
    script = CrewScript()
    for claim_id in ("C-1", "C-2"):
        water_replies(script, claim_id)
    script.set("C-1", "intake", Hang())
    server = openai_server(script, hang_limit_s=PROCESS_GUARD_S * 2)
    point_model_at(server, monkeypatch)
    # Time for C-1's first call from a new process on a busy machine, and for C-2 whole: C-2
    # takes 0.3 s idle, a hundredth of this, so even ten jobs on two cores leave it room (8 s,
    # the deadline this had, was missed at a load of 9-11).
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "30")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    inbox = tmp_path / "inbox"
    water_claims(inbox, "C-1", "C-2")
    command = [
        sys.executable,
        "-c",
        "from claims_crew.cli import main; "
        f"main(['run', '--inbox', {str(inbox)!r}, '--concurrency', '1'])",
    ]

    done = subprocess.run(command, capture_output=True, text=True, timeout=PROCESS_GUARD_S)

    assert done.returncode == 1, done.stderr
    assert "[1/2] C-1.json: failed (timeout)" in done.stdout
    assert "[2/2] C-2.json: reviewed in" in done.stdout
    assert "1 claim(s) failed" in done.stderr
    script.set("C-1", "intake", water_intake)
    again = subprocess.run(command, capture_output=True, text=True, timeout=PROCESS_GUARD_S)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "[1/1] C-1.json: reviewed in" in again.stdout  # only C-1 was left to review
    assert sorted(d.claim_id for d in Store().decisions()) == ["C-1", "C-2"]
