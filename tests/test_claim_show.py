"""`claims-crew claim show`: any claim, whoever decided it, on both engines: one the rules decided
without a person, one escalated and then decided by a person, and a claim the store never saw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from claims_crew.cli import main
from claims_crew.cli.claim import show_detail
from claims_crew.desk import load_desk
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.claim_detail import claim_detail
from claims_crew.store import Store
from tests.support.store import accepted_answers, record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """C-1047 accepted by the rules; C-1042 escalated (nobody knows when the damage started)."""
    store = Store()
    auto = water_loaded(tmp_path / "inbox", "C-1047")
    store.record(record_for(auto, sample_library, **accepted_answers()), None, auto)
    escalated = water_loaded(tmp_path / "inbox", "C-1042")
    store.record(record_for(escalated, sample_library), None, escalated)
    store.add_reviewer("ana")
    return store


def show(*args: str) -> Result:
    return CliRunner().invoke(main, ["claim", "show", *args])


def test_a_claim_the_rules_decided_shows_its_decision_facts_letter_and_trail(store: Store) -> None:
    result = show("C-1047")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # Not a terminal: headings and whole plain lines, no panel borders.
    assert "Claim:" in lines and "Audit entries:" in lines
    assert not any("╭" in line or "│" in line for line in lines)
    assert "  C-1047: decided by the rules" in lines
    decided = next(line for line in lines if line.startswith("  ACCEPTED covered"))
    assert decided == "  ACCEPTED covered"
    made = next(line for line in lines if line.startswith("  by "))
    rule = store.decision_on_file("C-1047")
    assert rule is not None
    assert made.startswith(f"  by the rules (rule {rule.resolution.rule}), automatically, at ")
    assert "  no escalation: no person was asked" in lines
    assert any(line.startswith("    date_of_loss: 2025-11-03 verified") for line in lines)
    assert "  not issued yet" in lines
    assert "  write it with: claims-crew letter C-1047 --format pdf --out C-1047.pdf" in lines
    [entry] = store.audit_entries("C-1047")
    assert any(line.startswith(f"  #{entry.seq} {entry.at} auto: covered (") for line in lines)


def test_the_json_says_the_same_and_counts_a_letter_once_issued(store: Store) -> None:
    written = CliRunner().invoke(main, ["letter", "C-1047", "--format", "md"])
    assert written.exit_code == 0, written.output
    result = show("C-1047", "--json")
    assert result.exit_code == 0, result.output
    detail = json.loads(result.stdout)
    assert (detail["state"], detail["decision"]["outcome"]) == ("decided", "ACCEPTED")
    assert detail["decision"]["decided_by"] == "auto"
    assert detail["made_by"]["kind"] == "rules" and detail["escalation"] is None
    [issued] = detail["letter"]["issued"]
    assert issued["format"] == "md" and issued["sha256"] == store.letters_issued("C-1047")[0].sha256
    assert [e["kind"] for e in detail["trail"]] == ["auto", "letter"]
    assert detail["amount"]["currency"] == "GBP"


def test_an_escalated_claim_shows_its_question_and_then_the_person_who_decided(
    store: Store,
) -> None:
    waiting = show("C-1042")
    assert waiting.exit_code == 0, waiting.output
    lines = waiting.output.splitlines()
    assert "  C-1042: escalated" in lines
    assert any(line.startswith("  ESCALATED") for line in lines)
    assert any(line.startswith("  escalation ") and "open: " in line for line in lines)
    # Who has it, as the queue says (nobody here: no reviewer fits the claim's line yet).
    who = next(i for i, line in enumerate(lines) if line.startswith("  who has it: "))
    assert lines[who + 1] == "  decide with: claims-crew review show C-1042"
    assert any(line.startswith("  no letter: claim C-1042 is escalated") for line in lines)

    store.decide("C-1042", "needs_more_evidence", "Ask for the plumber's report.", "ana",
                 rules=load_desk())  # fmt: skip
    detail = claim_detail(store, "C-1042")
    assert detail["state"] == "decided"
    assert detail["made_by"]["kind"] == "reviewer" and detail["made_by"]["reviewer"] == "ana"
    assert detail["decision"]["decided_by"] == "human:ana"
    decided = show("C-1042").output.splitlines()
    made = next(line for line in decided if line.startswith("  by "))
    assert made.startswith("  by ana, a person, at ")
    assert made.endswith(": Ask for the plumber's report.")
    closed = [line for line in decided if line.startswith("  escalation ")]
    assert len(closed) == 1 and " decided by ana at " in closed[0]


def test_a_claim_a_person_decided_leads_with_them_and_keeps_the_rules_outcome_as_history(
    store: Store,
) -> None:
    store.decide("C-1042", "covered", "The plumber dates the leak.", "ana", rules=load_desk())
    at = store.decision_on_file("C-1042")
    assert at is not None and at.review is not None
    lines = show("C-1042").stdout.splitlines()
    assert f"  C-1042: decided by a person (ana, {at.review.decided_at})" in lines
    decision = lines.index("Decision:")
    assert lines[decision + 1] == "  covered"
    assert lines[decision + 3] == "  before them the rules said: ESCALATED (needs_more_evidence)"
    assert not any("ESCALATED" in line for line in lines[: decision + 3])
    as_json = json.loads(show("C-1042", "--json").stdout)
    assert as_json["standing"] == f"decided by a person (ana, {at.review.decided_at})"
    assert json.loads(show("C-1047", "--json").stdout)["standing"] == "decided by the rules"


def test_a_terminal_gets_panels(store: Store) -> None:
    console = Console(force_terminal=True, record=True, width=120)
    show_detail(console, claim_detail(store, "C-1047"))
    shown = console.export_text()
    for title in ("Claim", "Decision", "Facts", "Letter", "Audit entries"):
        assert f"╭─ {title} " in shown
    assert "ACCEPTED covered" in shown


def test_an_unknown_claim_is_a_clear_error_and_exit_3(store: Store) -> None:
    result = show("C-9999")
    assert result.exit_code == 3
    assert "error [not_found]: no claim 'C-9999' in the store" in result.stderr
    as_json = show("C-9999", "--json")
    assert as_json.exit_code == 3
    assert json.loads(as_json.stdout)["error"]["code"] == "not_found"


def test_review_show_of_a_claim_nobody_was_asked_about_points_to_claim_show(store: Store) -> None:
    result = CliRunner().invoke(main, ["review", "show", "C-1047"])
    assert result.exit_code == 3
    assert result.stderr.splitlines()[-1] == (  # after the line saying what it reads
        "error [not_found]: no escalation for 'C-1047': no person was asked; "
        "see it with: claims-crew claim show C-1047"
    )
    unknown = CliRunner().invoke(main, ["review", "show", "C-9999"])
    assert unknown.exit_code == 3 and "claim show" not in unknown.stderr
