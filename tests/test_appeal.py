"""Appeals: a decided claim reopened with new evidence, reviewed again by the claim routine, its
new decision linked to the one it replaces, nothing overwritten, and the chain still verifying;
on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from sqlalchemy import text

from claims_crew.cli import main
from claims_crew.cli.run import review_inbox
from claims_crew.desk import DeskRules
from claims_crew.errors import StoreError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.appeal import AppealRefused, appeal
from claims_crew.run.context import RunContext, build_context
from claims_crew.store import Store
from tests.support.crew import Script, water_script
from tests.support.openai_server import StartServer
from tests.support.paths import ROOT
from tests.support.provider import CrewScript, point_model_at, water_replies
from tests.support.store import accepted_answers, record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

PLUMBER = "Plumber's report: the joint under the bath split on 3 November 2025; no earlier leak."


def escalated_claim(tmp_path: Path) -> Store:
    """C-1042 reviewed as `claims-crew run` reviews it: escalated, waiting for a person."""
    inbox = tmp_path / "inbox"
    water_loaded(inbox, "C-1042")
    assert review_inbox(inbox, 1, Console(record=True), llm_for=water_script()) == 0
    store = Store()
    store.add_reviewer("ana")
    store.add_reviewer("bob")
    return store


def evidence(tmp_path: Path) -> Path:
    path = tmp_path / "new" / "plumber-report.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PLUMBER, encoding="utf-8")
    return path


def settings_for(library: PolicyLibrary, store: Store) -> tuple[RunContext, Script]:
    script = water_script()
    config = ROOT / "config"
    return build_context(library=library, llm_for=script, store=store, config_dir=config), script


def test_an_appeal_with_a_new_attachment_reopens_the_claim_and_links_the_decisions(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = escalated_claim(tmp_path)
    first = store.decide(
        "C-1042", "not_covered", "Gradual seepage, as 7.1 says.", "ana", rules=DeskRules()
    )
    settings, script = settings_for(sample_library, store)

    done = appeal(settings, "C-1042", [evidence(tmp_path)], "The plumber dates the leak.")

    assert done.error is None and done.replaces == first.audit_seq
    # A person decided it: the appeal goes back to the queue, leaving ana out.
    assert done.escalated and done.previous_reviewer == "ana"
    # The new attachment reached intake, as a claim's own attachments do.
    intake = script.llms["intake"].calls[0]
    assert PLUMBER in "\n".join(
        str(m.get("content", "")) for m in intake
    )  # the new attachment reached intake, as a claim's own does
    reopened = store.escalation("C-1042")
    assert reopened.state == "open" and reopened.excluded_reviewers == ("ana",)
    assert "ana decided not_covered" in (reopened.question or "")
    # Assigned by the desk's rule leaving ana out: both are free, and by name it would be ana.
    assert store.assignees(["C-1042"]) == {"C-1042": "bob"}
    [escalated] = [e for e in store.audit_entries("C-1042") if e.seq == done.audit_seq]
    assert escalated.reviewer == "bob"  # the appeal's escalated entry names who has it
    with pytest.raises(StoreError, match="a different reviewer"):
        store.decide("C-1042", "covered", "Still not convinced.", "ana", rules=DeskRules())
    second = store.decide(
        "C-1042", "covered", "Sudden escape of water, dated.", "bob", rules=DeskRules()
    )

    entries = {e.seq: e for e in store.audit_entries("C-1042")}
    appealed = entries[done.audit_seq or 0]
    assert appealed.appeal is not None and appealed.appeal.replaces == first.audit_seq
    with store.engine.connect() as conn:
        first_hash = conn.execute(
            text("SELECT hash FROM audit_log WHERE seq = :seq"), {"seq": first.audit_seq}
        ).scalar()
        kept = conn.execute(
            text("SELECT what, row, superseded_by FROM superseded WHERE claim_id = 'C-1042'")
        ).all()
    assert appealed.appeal.replaces_hash == first_hash
    assert appealed.appeal.attachments == ["plumber-report.txt"]
    assert entries[second.audit_seq].overrides == done.audit_seq
    # The earlier decision stays on record: ana's entry and her review, kept whole.
    assert entries[first.audit_seq].actor == "human:ana"
    assert [r.reviewer for r in store.reviews("C-1042")] == ["bob"]
    reviews = [json.loads(row) for what, row, _ in kept if what == "review"]
    assert [(r["reviewer"], r["decision"]) for r in reviews] == [("ana", "not_covered")]
    assert {by for _, _, by in kept} == {done.audit_seq}
    verdict = store.verify_audit()
    assert verdict.ok, verdict.problem
    result = CliRunner().invoke(main, ["audit", "verify", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["ok"] is True, result.output


def test_an_appeal_of_an_undecided_claim_is_refused_with_the_reason(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = escalated_claim(tmp_path)
    settings, script = settings_for(sample_library, store)
    new = evidence(tmp_path)
    with pytest.raises(AppealRefused, match="waits for a person"):
        appeal(settings, "C-1042", [new], "New evidence.")
    with pytest.raises(AppealRefused, match="no decision"):
        appeal(settings, "C-9999", [new], "New evidence.")
    refused = CliRunner().invoke(
        main, ["appeal", "C-1042", "--attach", str(new), "--reason", "New evidence."]
    )
    assert refused.exit_code == 2 and "waits for a person" in refused.output
    assert script.llms["intake"].calls == []
    assert store.verify_audit().ok


def test_an_appeal_naming_an_attachment_the_claim_has_is_refused(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    store = escalated_claim(tmp_path)
    store.decide("C-1042", "not_covered", "Seepage.", "ana", rules=DeskRules())
    settings, _ = settings_for(sample_library, store)
    twice = [evidence(tmp_path), evidence(tmp_path)]
    with pytest.raises(AppealRefused, match="another name"):
        appeal(settings, "C-1042", twice, "Twice.")
    with pytest.raises(AppealRefused, match="reason"):
        appeal(settings, "C-1042", twice[:1], "  ")


def test_the_appeal_command_reviews_an_automatic_decision_through_the_provider(
    tmp_path: Path,
    sample_library: PolicyLibrary,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = Store()
    water = water_loaded(tmp_path / "inbox", "C-1042")
    accepted = store.record(record_for(water, sample_library, **accepted_answers()), None, water)
    assert accepted.outcome == "ACCEPTED"
    server = openai_server(water_replies(CrewScript(), "C-1042"))
    point_model_at(server, monkeypatch)

    result = CliRunner().invoke(
        main,
        ["appeal", "C-1042", "--attach", str(evidence(tmp_path)), "--reason", "Seepage after all"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert f"replaces entry {accepted.audit_seq}" in result.output
    assert "ESCALATED" in result.output and "back to the review queue" in result.output
    # Nobody decided it before: any reviewer may decide the appeal.
    assert store.escalation("C-1042").excluded_reviewers == ()
    [entry] = [e for e in store.audit_entries("C-1042") if e.appeal is not None]
    assert entry.appeal is not None and entry.appeal.previous_reviewer is None
    assert entry.appeal.reason == "Seepage after all"
    assert store.verify_audit().ok
