"""Reviewing an inbox: records per claim, a re-run picks up where it stopped, failures exit 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from claims_crew.cli.run import review_inbox
from claims_crew.llms.scripted import ScriptedLLM, final, lookup
from claims_crew.store import Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    WATER_CLAIM,
    Script,
    start_date_answer,
    water_intake,
)


def _inbox(tmp_path: Path, *names: str) -> Path:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in names:  # the claim file and its attachments
        for path in WATER_CLAIM.parent.glob(name.split(".")[0] + "*"):
            shutil.copy(path, inbox / path.name)
    return inbox


def _water_answers(script: Script) -> None:
    # The facts, then null when the conflict asks when the damage started.
    script("intake").enqueue(final(INTAKE_WATER), final(start_date_answer(None)))
    script("policy").enqueue(lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED))
    script("fraud").enqueue(final(FRAUD_EXCLUDED))


def test_review_records_each_claim_and_a_rerun_skips_reviewed_ones(tmp_path: Path) -> None:
    inbox = _inbox(tmp_path, "C-1042.json")
    bad = inbox / "C-9999.json"
    bad.write_text(json.dumps({"claim_id": "C-9999", "policy_id": "HM-HOME-001"}))
    script = Script()
    _water_answers(script)
    console = Console(record=True, width=200)
    failed = review_inbox(inbox, 1, console, llm_for=script)
    assert failed == 1  # the claim file with missing fields
    out = console.export_text()
    assert "claimant" in out and "Field required" in out
    record = Store().claim_record("C-1042")
    assert record is not None and record.status == "reviewed"

    # A second run sends nothing to the model for the reviewed claim (the queue is empty).
    again = Console(record=True, width=200)
    assert review_inbox(inbox, 1, again, llm_for=script) == 1
    assert "1 to review" in again.export_text()  # only the broken file is left
    assert len(script("intake").calls) == 2  # the first run's facts and targeted question


def test_a_crash_mid_batch_keeps_finished_claims_and_retries_the_rest(tmp_path: Path) -> None:
    inbox = _inbox(tmp_path, "C-1042.json", "C-1043.json")
    script = Script()
    _water_answers(script)  # answers for one claim only: the second claim's crew fails
    assert review_inbox(inbox, 1, Console(record=True), llm_for=script) == 1
    first = Store().claim_record("C-1042")
    second = Store().claim_record("C-1043")
    assert first is not None and first.status == "reviewed"
    assert second is not None and second.status == "failed" and second.error is not None

    _water_answers(script)
    assert review_inbox(inbox, 1, Console(record=True), llm_for=script) == 0
    second = Store().claim_record("C-1043")
    assert second is not None and second.status == "reviewed"


@pytest.mark.parametrize("concurrency", [1, 3])
def test_concurrent_claims_keep_their_own_ledgers(tmp_path: Path, concurrency: int) -> None:
    inbox = _inbox(tmp_path, "C-1042.json", "C-1043.json", "C-1044.yaml")
    # Each agent's model is shared by the three claims, so its answer must depend on the
    # conversation, not on a queue the claims would pop in whatever order they run.
    script = Script()
    script.llms = {
        "intake": ScriptedLLM(responder=water_intake),
        "policy": ScriptedLLM(
            responder=lambda m: (
                final(POLICY_COVERED)
                if "clause_id: 4.2(b)" in str(m)  # the tool has answered
                else lookup("HM-HOME-001", "4.2(b)")
            )
        ),
        "fraud": ScriptedLLM(responder=lambda _m: final(FRAUD_EXCLUDED)),
    }
    assert review_inbox(inbox, concurrency, Console(record=True), llm_for=script) == 0
    for claim_id in ("C-1042", "C-1043", "C-1044"):
        record = Store().claim_record(claim_id)
        assert record is not None
        assert [e.returned_clause_ids for e in record.ledger] == [["4.2(b)"]]
        # Each claim's own intake answered its targeted question: null, as the claim says.
        targeted = record.resolution and record.resolution.targeted
        assert targeted and targeted.parse_error is None and not targeted.verified


def test_a_run_in_which_every_claim_failed_says_how_many_and_why(tmp_path: Path) -> None:
    """Two files refused and one claim whose crew failed: the summary counts them by reason."""
    inbox = _inbox(tmp_path, "C-1042.json")
    (inbox / "C-9998.json").write_text("{not json")
    (inbox / "C-9999.json").write_text("[1, 2")
    console = Console(record=True, width=200)
    # No answer is scripted: C-1042's crew fails at its first model call.
    assert review_inbox(inbox, 1, console, llm_for=Script()) == 3
    said = console.export_text().splitlines()
    assert "3 claim(s) failed: 2 bad claim file (malformed), 1 crew_failed" in said
