"""`claims-crew review decide --clause`: a person decides an escalation on the clause(s) they
name, re-read in the wording in force and shown with the amount before it is recorded; the
letter then quotes the clause and states the amount. Without a clause where the desk wants one,
or with one the wording lacks, nothing is recorded and the refusal says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import clause_lines, main
from claims_crew.cli.acting import TOKEN_VARIABLE
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.issued_policies import AMENDED_WATER, FORM_WATER
from tests.support.letters import letter, pdf_text
from tests.support.reviewers import as_reviewer, decide
from tests.support.store import record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")

# 4.2(b) as the sample home form prints it, and the amount it pays on the £4,200 water claim:
# within the 4.2 sub-limit, less that section's £500 deductible.
WATER_WORDS = "sudden and accidental discharge of water or steam"
ON_4_2_B = "3700"


def said(output: str) -> str:
    """A command's output as one line of words: panel borders and line breaks dropped."""
    return " ".join(output.replace("│", " ").split())


@pytest.fixture
def tokens() -> dict[str, str]:
    return {}


def _escalated(
    folder: Path, library: PolicyLibrary, tokens: dict[str, str], **changes: str
) -> Store:
    """The water claim escalated (policy cites 4.2(b), fraud 7.1), reviewers ana and bo."""
    store = Store()
    water = water_loaded(folder, **changes)
    store.record(record_for(water, library), None, water)
    tokens["ana"] = store.add_reviewer("ana")
    tokens["bo"] = store.add_reviewer("bo")
    return store


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary, tokens: dict[str, str]) -> Store:
    return _escalated(tmp_path / "inbox", sample_library, tokens)


def test_a_person_decides_on_a_clause_and_the_pdf_letter_quotes_it_with_the_amount(
    store: Store, tokens: dict[str, str], tmp_path: Path
) -> None:
    done = decide(tokens["ana"], "C-1042", "covered", "The plumber dates it.", "--clause", "4.2(b)")
    assert done.exit_code == 0, done.output
    shown = said(done.output)
    assert "C-1042: covered, resting on" in shown and "Clause 4.2(b)" in shown
    assert WATER_WORDS in shown
    assert f"Payable: {ON_4_2_B} GBP (on clause 4.2(b))" in shown
    assert "covered by ana on clause 4.2(b), audit entry" in shown

    out = tmp_path / "C-1042.pdf"
    code, _, errors = letter("C-1042", "--format", "pdf", "--out", str(out))
    assert code == 0, errors
    text = pdf_text(out.read_bytes())
    assert "Your claim is covered." in text
    assert "Clause 4.2(b)" in text and WATER_WORDS in text
    assert "We will pay £3,700." in text and "No amount payable is recorded" not in text
    assert "does not rest on a clause" not in text
    [entry] = [e for e in store.audit_entries("C-1042") if e.kind == "human"]
    assert entry.clauses is not None and [c.clause_id for c in entry.clauses] == ["4.2(b)"]
    assert WATER_WORDS in entry.clauses[0].text
    assert entry.payable is not None and str(entry.payable.amount) == ON_4_2_B
    verified = CliRunner().invoke(main, ["audit", "verify", "--json"])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.stdout)["ok"] is True


def test_without_a_clause_a_covered_decision_is_refused_naming_those_verified(
    store: Store, tokens: dict[str, str]
) -> None:
    refused = decide(tokens["ana"], "C-1042", "covered", "Sudden.", "--json")
    assert refused.exit_code == 2, refused.output
    error = json.loads(refused.stdout)["error"]
    assert error["code"] == "refused"
    assert "a covered decision must name the clause(s) it rests on" in error["message"]
    assert "The re-read verified: 4.2(b)" in error["message"] and "7.1" in error["message"]
    assert "--clause ID" in error["message"]
    assert store.escalation("C-1042").state == "open" and store.reviews("C-1042") == []


def test_needs_more_evidence_is_allowed_without_a_clause(
    store: Store, tokens: dict[str, str]
) -> None:
    done = decide(tokens["ana"], "C-1042", "needs_more_evidence", "Ask for the invoice.", "--json")
    assert done.exit_code == 0, done.output
    review = json.loads(done.stdout)["review"]
    assert review["decision"] == "needs_more_evidence" and review["clauses"] == []


def test_an_unknown_clause_is_refused_by_its_id(store: Store, tokens: dict[str, str]) -> None:
    refused = decide(
        tokens["ana"], "C-1042", "covered", "x", "--clause", "4.2(b)", "--clause", "12.9"
    )
    assert refused.exit_code == 2, refused.output
    assert "clause '12.9' is not in the wording in force of policy HM-HOME-001" in refused.output
    assert store.reviews("C-1042") == []


def test_show_offers_the_verified_clauses_first(store: Store) -> None:
    detail = json.loads(CliRunner().invoke(main, ["review", "show", "C-1042", "--json"]).stdout)
    offered = detail["clauses_offered"]
    assert [(c["clause_id"], c["verified"]) for c in offered[:2]] == [
        ("4.2(b)", True),
        ("7.1", True),
    ]
    assert not any(c["verified"] for c in offered[2:]) and detail["clauses_named"] == []
    shown = CliRunner().invoke(main, ["review", "show", "C-1042"], env={"COLUMNS": "300"})
    text = " ".join(shown.output.split())
    assert "Clauses to decide on:" in text and "4.2(b)" in text
    assert "verified by the re-read" in text and "--clause ID" in text


def test_a_refusal_proposed_and_confirmed_keeps_its_clause_for_the_letter(
    store: Store, tokens: dict[str, str]
) -> None:
    """config/desk.yaml has four eyes on every not_covered, as for C-1045."""
    proposed = decide(
        tokens["ana"], "C-1042", "not_covered", "Seepage over weeks.", "--clause", "7.1", "--json"
    )
    assert proposed.exit_code == 0, proposed.output
    proposal = json.loads(proposed.stdout)["proposal"]
    assert [c["clause_id"] for c in proposal["clauses"]] == ["7.1"]
    shown = json.loads(CliRunner().invoke(main, ["review", "show", "C-1042", "--json"]).stdout)
    assert [c["clause_id"] for c in shown["clauses_named"]] == ["7.1"]

    confirmed = as_reviewer(tokens["bo"], "review", "confirm", "C-1042")
    assert confirmed.exit_code == 0, confirmed.output
    confirming = said(confirmed.output)
    assert "ana proposed not_covered on" in confirming and "Clause 7.1" in confirming
    assert "not_covered by bo on clause 7.1" in confirming

    code, body, errors = letter("C-1042")
    assert code == 0, errors
    text = body.decode("utf-8")
    assert "Your claim is not covered." in text and "Clause 7.1" in text
    assert "does not rest on a clause" not in text


def test_an_amended_clause_is_shown_and_quoted_in_its_amended_words(
    tmp_path: Path, sample_library: PolicyLibrary, tokens: dict[str, str]
) -> None:
    """The water claim on HM-25-00417, whose 4.2(b) endorsement HM-E-07 replaced."""
    store = _escalated(tmp_path / "inbox", sample_library, tokens, policy_number="HM-25-00417")
    done = decide(tokens["ana"], "C-1042", "covered", "A new boiler.", "--clause", "4.2(b)")
    assert done.exit_code == 0, done.output
    shown = said(done.output)
    assert "in force as amended by endorsement HM-E-07 (page 1)" in shown
    assert AMENDED_WATER in shown
    [review] = store.reviews("C-1042")
    assert review.clauses[0].amended_by == "as amended by endorsement HM-E-07 (page 1)"

    code, body, errors = letter("C-1042")
    assert code == 0, errors
    text = " ".join(body.decode("utf-8").split())
    assert "Clause 4.2(b) as amended by endorsement HM-E-07 (page 1)" in text
    assert AMENDED_WATER in text and FORM_WATER not in text


def test_at_a_terminal_the_clause_is_confirmed_before_it_is_recorded(
    store: Store, tokens: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(clause_lines, "interactive", lambda: True)
    args = ["review", "decide", "C-1042", "--decision", "covered", "--reason", "Sudden."]
    env = {TOKEN_VARIABLE: tokens["ana"]}
    declined = CliRunner().invoke(main, [*args, "--clause", "4.2(b)"], input="n\n", env=env)
    assert declined.exit_code == 1, declined.output
    assert "Record this decision on these clauses?" in declined.output
    assert store.escalation("C-1042").state == "open" and store.reviews("C-1042") == []
    agreed = CliRunner().invoke(main, [*args, "--clause", "4.2(b)", "--yes"], env=env)
    assert agreed.exit_code == 0, agreed.output
    assert "Record this decision" not in agreed.output
    assert [r.clauses[0].clause_id for r in store.reviews("C-1042")] == ["4.2(b)"]


def test_a_proposal_that_names_no_clause_is_not_confirmed(
    store: Store, tokens: dict[str, str]
) -> None:
    """A refusal proposed before decisions named clauses (the store records what it is given):
    confirming it would send a letter that cites nothing, so it must go back instead."""
    from claims_crew.desk import load_desk

    store.decide("C-1042", "not_covered", "Seepage over weeks.", "ana", rules=load_desk())
    assert store.proposal("C-1042") is not None

    confirmed = as_reviewer(tokens["bo"], "review", "confirm", "C-1042")
    assert confirmed.exit_code != 0
    assert "must name the clause(s)" in said(confirmed.output)
    assert "return the proposal" in said(confirmed.output)
    assert store.reviews("C-1042") == [] and store.proposal("C-1042") is not None
