"""A service client's calls are audit entries that decide nothing: on a claim decided through
the real crew (only the models scripted), calls about it leave its decision in force, its
letter, its revalidation and `audit verify` as they were (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.context import build_context
from claims_crew.run.crew_review import review_claim
from claims_crew.store.service_tables import webhook_events
from tests.support.crew import water_claim_saying_when
from tests.support.letters import adjudicated_water, decided, letter
from tests.support.paths import ROOT

pytestmark = pytest.mark.usefixtures("engine")


def test_calls_about_a_decided_claim_leave_its_decision_letter_and_revalidation_alone(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    path = water_claim_saying_when(tmp_path / "inbox")
    store = decided(sample_library, path, adjudicated_water())
    [before] = store.standings(["C-1042"])
    on_file = store.decision_on_file("C-1042")
    assert on_file is not None and on_file.entry_seq == before.entry_seq == 1

    sha = load_claim(path).sha256
    store.record_call("core", "GET /api/v1/claims/C-1042", 200, "C-1042", sha)
    assert letter("C-1042", "--format", "md")[0] == 0  # the letter states entry 1
    store.record_call("core", "GET /api/v1/claims/C-1042/letter", 200, "C-1042", sha)
    store.record_call("core", "POST /api/v1/claims", 409, "C-1042", sha)

    # The decision in force is still entry 1, for the queries that pick it by claim.
    [after] = store.standings(["C-1042"])
    assert after.entry_seq == 1 and (after.outcome, after.answer) == (before.outcome, "covered")
    on_file = store.decision_on_file("C-1042")
    assert on_file is not None and on_file.entry_seq == 1
    assert [e.kind for e in store.audit_entries("C-1042")] == ["adjudicated", "letter"]
    kinds = [e.kind for e in store.audit_entries("C-1042", calls=True)]
    assert kinds == ["adjudicated", "api_call", "letter", "api_call", "api_call"]
    # Another letter still states the decision (it is refused when the entry in force moved).
    assert letter("C-1042", "--format", "html")[0] == 0
    assert [i.audit_seq for i in store.letters_issued("C-1042")] == [3, 6]

    # A revalidation links to the decision, not to the calls after it.
    loaded = load_claim(path)
    settings = build_context(
        library=sample_library, llm_for=adjudicated_water(), store=store, config_dir=ROOT / "config"
    )
    record = review_claim(loaded, settings)
    done = store.record_revalidation(
        record, loaded, settings.basis(record, loaded), "replay", ["policy"], after.entry_seq
    )
    entry = store.audit_entries("C-1042")[-1]
    assert entry.seq == done.audit_seq == 7
    assert (entry.kind, entry.revalidates) == ("revalidated", 1)

    # Only the decision was announced: calls, letters and the replay tell nobody.
    with store.read() as conn:
        events = conn.execute(select(webhook_events.c.type, webhook_events.c.payload)).all()
    assert [e.type for e in events] == ["claim.decided"]
    assert json.loads(events[0].payload)["data"]["audit"]["seq"] == 1

    assert store.verify_audit().ok
    result = CliRunner().invoke(main, ["audit", "verify", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["ok"] is True
