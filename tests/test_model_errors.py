"""A model's bad answers and failed calls go to the claim's record and log, not the terminal.

A fresh `claims-crew run` against the scripted OpenAI-wire server, the way a user starts it:
intake answers each claim's targeted question with JSON that TargetedAnswer refuses (an extra
key), and one claim's provider fails outright. The terminal shows one line per claim; the
record keeps the provider's JSON as it was sent; what CrewAI logged for the failed claim is in
that claim's log; and every request the server received is counted.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claims_crew.run.claim_log import capturing, for_the_terminal, log_path
from claims_crew.store import Store
from tests.support.crew import INTAKE_WATER, QUESTION_TAIL, start_date_answer
from tests.support.openai_server import ChatRequest, Reply, StartServer, Status
from tests.support.paths import ROOT
from tests.support.provider import (
    CrewScript,
    answer,
    claim_of,
    point_model_at,
    water_claims,
    water_replies,
)

pytestmark = pytest.mark.slow

ANSWERING = ("M-1", "M-2", "M-3")
FAILING = "M-4"
GUARD_S = 300  # a run here takes seconds; a hung one fails the test instead of the suite


def cli(*args: str) -> list[str]:
    """`claims-crew ARGS` in a fresh process, as a user starts it."""
    return [sys.executable, "-c", f"from claims_crew.cli import main; main({list(args)!r})"]


def extra_key(claim_id: str) -> dict[str, Any]:
    """A targeted answer with a key TargetedAnswer does not allow."""
    return {**start_date_answer(None), "note": f"asked about {claim_id}"}


def intake(request: ChatRequest) -> Reply:
    if QUESTION_TAIL in request.text:
        return answer(extra_key(claim_of(request)))
    return answer(INTAKE_WATER)


def test_bad_answers_and_failed_calls_stay_out_of_the_terminal(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = CrewScript()
    for claim_id in (*ANSWERING, FAILING):
        water_replies(script, claim_id)
        script.set(claim_id, "intake", intake)
    script.set(FAILING, "intake", Status(500))
    server = openai_server(script)
    point_model_at(server, monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_MODEL_RETRIES", "0")  # one request per call
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    inbox = tmp_path / "inbox"
    water_claims(inbox, *ANSWERING, FAILING)

    done = subprocess.run(
        cli("run", "--inbox", str(inbox)), capture_output=True, text=True, timeout=GUARD_S
    )

    assert done.returncode == 1, done.stdout + done.stderr
    said = done.stdout.splitlines() + done.stderr.splitlines()
    lines = {c: [line for line in said if f"{c}.json" in line] for c in (*ANSWERING, FAILING)}
    assert all(len(found) == 1 for found in lines.values()), said  # one line a claim
    assert not [line for line in said if "ERROR" in line or "Warning" in line], said
    [failed] = lines[FAILING]
    assert "failed (crew_failed)" in failed and str(log_path(FAILING)) in failed
    logged = log_path(FAILING).read_text(encoding="utf-8")
    assert "OpenAI API call failed" in logged
    # A failure with no name of its own leaves its traceback there, for whoever reports it.
    assert f"{FAILING}: the review failed\nTraceback (most recent call last):" in logged

    store = Store()
    for claim_id in ANSWERING:
        record = store.claim_record(claim_id)
        assert record is not None and record.resolution is not None
        # The provider's JSON, as it was sent, and why it was refused.
        assert record.raw["targeted_question_task"] == json.dumps(extra_key(claim_id))
        targeted = record.resolution.targeted
        assert targeted is not None and "note" in (targeted.parse_error or "")
    # Every request the server received is counted, by the record of its claim.
    for claim_id in (*ANSWERING, FAILING):
        record = store.claim_record(claim_id)
        assert record is not None
        received = [r for r in server.requests if claim_of(r) == claim_id]
        assert sum(record.model_calls.values()) == len(received), claim_id
    # ...and the report's, over the decided claims.
    report = subprocess.run(
        cli("report", "--json"), capture_output=True, text=True, timeout=GUARD_S
    )
    figures = json.loads(report.stdout)
    decided = [r for r in server.requests if claim_of(r) in ANSWERING]
    assert figures["overall"]["model_calls"]["count"] == len(decided)
    by_task = {row["task"]: row for row in figures["cost"]["by_task"]}
    assert by_task["targeted_question_task"]["calls"] == len(ANSWERING)


@pytest.mark.parametrize(
    ("logger", "shown"),
    [("crewai.flow.runtime", False), ("root", False), ("claims_crew.store.outage", True)],
)
def test_within_a_claim_only_the_store_s_own_trouble_reaches_the_terminal(
    logger: str, shown: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database lost during a review is the worker's trouble, not the claim's: whoever runs
    the worker sees it; CrewAI's lines about the claim stay in the claim's log."""
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(tmp_path))
    record = logging.LogRecord(logger, logging.WARNING, __file__, 1, "said", None, None)
    assert for_the_terminal(record)  # outside any claim, everything is shown
    with capturing("C-1"):
        assert for_the_terminal(record) is shown
