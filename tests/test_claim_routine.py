"""The one claim routine: a run and a queue worker put every claim through the same function
(run/routine.decide_claim), and a run reads each claim file from disk once.

Through the scripted crew and a real SQLite store: copies of the water claim C-1042 whose
description says when the leak began, so both agents look 4.2(b) up and agree.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from claims_crew import claim_files
from claims_crew.cli.run import review_inbox
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run import routine
from claims_crew.run.batch import run_batch
from claims_crew.run.ingest import ingest
from claims_crew.run.worker import Worker
from claims_crew.store import Store
from tests.support.crew import (
    KNOWN_START,
    POLICY_COVERED,
    Script,
    looked_up,
    responding,
    settings,
    water_claim_saying_when,
)

# Each runs crews over several claims, and one a queue worker too.
pytestmark = pytest.mark.slow

SURE = {**POLICY_COVERED, "confidence": 0.9}


def agreeing() -> Script:
    """Intake reads the start date; each reviewer looks 4.2(b) up, then answers covered."""

    def reviewer(m: object) -> str:
        return final(SURE) if looked_up(m) else lookup("HM-HOME-001", "4.2(b)")

    return responding(intake=lambda _m: final(KNOWN_START), policy=reviewer, fraud=reviewer)


def inbox(folder: Path, *claim_ids: str) -> list[Path]:
    return [water_claim_saying_when(folder, claim_id) for claim_id in claim_ids]


@pytest.fixture
def routine_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The claim ids routine.decide_claim was called with, in order; it still does its work."""
    calls: list[str] = []
    decide = routine.decide_claim

    def spy(claim: routine.StoredClaim, *args: Any, **kwargs: Any) -> Any:
        calls.append(claim.claim_id)
        return decide(claim, *args, **kwargs)

    monkeypatch.setattr(routine, "decide_claim", spy)
    return calls


def test_a_run_and_a_worker_decide_claims_through_one_routine(
    sample_library: PolicyLibrary, tmp_path: Path, routine_calls: list[str]
) -> None:
    run = settings(sample_library, agreeing(), tmp_path)
    items = run_batch(inbox(tmp_path / "run", "R-1", "R-2"), run)
    assert sorted(routine_calls) == ["R-1", "R-2"]
    assert all(item.ok and item.record is not None for item in items)

    ingest(inbox(tmp_path / "queued", "W-1", "W-2"), run.store)
    worked = Worker(run, until_empty=True, poll_s=0.05).run()
    assert sorted(routine_calls) == ["R-1", "R-2", "W-1", "W-2"]
    assert sorted(item.record.claim_id for item in worked if item.record) == ["W-1", "W-2"]
    decided = {d.claim_id: (d.outcome, d.answer) for d in run.store.decisions()}
    assert decided == dict.fromkeys(["R-1", "R-2", "W-1", "W-2"], ("ACCEPTED", "covered"))


def test_a_run_reads_each_claim_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through `run` as a user starts it: the default store in this test's CLAIMS_CREW_HOME."""
    parsed: Counter[str] = Counter()
    parse = claim_files._parse

    def counting(path: Path, raw: bytes) -> object:
        parsed[path.name] += 1
        return parse(path, raw)

    monkeypatch.setattr(claim_files, "_parse", counting)
    folder = tmp_path / "inbox"
    inbox(folder, "P-1", "P-2", "P-3")
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    failed = review_inbox(folder, 2, Console(record=True, width=200), agreeing())

    assert failed == 1  # the broken file, refused with its reason
    assert parsed == dict.fromkeys(["P-1.json", "P-2.json", "P-3.json", "broken.json"], 1)
    assert sorted(d.claim_id for d in Store().decisions()) == ["P-1", "P-2", "P-3"]
