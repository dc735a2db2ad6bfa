"""Strict, typed parsing of model answers and claim files: normalise only what is unambiguous."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from claims_crew.claim_files import inbox_files, load_claim
from claims_crew.errors import ClaimFileError
from claims_crew.models import Claim, IntakeFacts, ParseFailure, parse_claim, parse_intake
from tests.support.paths import ROOT

ALLOWED = ("covered", "not_covered")
GOOD = {
    "answer": "covered",
    "confidence": 0.8,
    "evidence": [{"clause_id": "4.2(b)", "quote": "x"}],
    "facts_relied_on": ["cause"],
    "rationale": "r",
}


@pytest.mark.parametrize(
    ("answer", "normalised"),
    [
        ("covered", "covered"),
        ("Covered", "covered"),
        ("NOT COVERED", "not_covered"),
        ("not-covered", "not_covered"),
        (" not_covered ", "not_covered"),
    ],
)
def test_unambiguous_variants_are_normalised(answer: str, normalised: str) -> None:
    parsed = parse_claim(json.dumps({**GOOD, "answer": answer}), ALLOWED)
    assert isinstance(parsed, Claim) and parsed.answer == normalised


def test_a_fenced_json_answer_is_read() -> None:
    parsed = parse_claim("```json\n" + json.dumps(GOOD) + "\n```", ALLOWED)
    assert isinstance(parsed, Claim) and parsed.confidence == 0.8


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("The claim is covered.", "not a JSON object"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({**GOOD, "answer": "REJECT"}), "not one of"),
        (json.dumps({**GOOD, "answer": None}), "not one of"),
        (json.dumps({**GOOD, "confidence": "high"}), "confidence"),
        (json.dumps({**GOOD, "confidence": "0.9"}), "confidence"),
        (json.dumps({**GOOD, "confidence": True}), "confidence"),
        (json.dumps({**GOOD, "confidence": -0.1}), "confidence"),
        (json.dumps(GOOD).replace("0.8", "NaN"), "NaN is not a number"),
        (json.dumps(GOOD).replace("0.8", "Infinity"), "Infinity is not a number"),
        (json.dumps({**GOOD, "facts_relied_on": ["weather"]}), "facts_relied_on"),
        (json.dumps({**GOOD, "verdict": "covered"}), "verdict"),
    ],
)
def test_junk_is_a_parse_failure_that_keeps_the_raw_text(raw: str, reason: str) -> None:
    parsed = parse_claim(raw, ALLOWED)
    assert isinstance(parsed, ParseFailure)
    assert reason in parsed.reason and parsed.raw == raw


def test_model_cannot_set_source_checked() -> None:
    parsed = parse_claim(json.dumps({**GOOD, "source_checked": True}), ALLOWED)
    assert isinstance(parsed, Claim) and parsed.source_checked is False


def test_intake_unknowns_are_computed_from_the_null_facts() -> None:
    raw = json.dumps(
        {
            "loss_type": "water_damage",
            "cause": None,
            "date_of_loss": "2025-11-03",
            "damage_start_date": None,
            "amount_claimed": 4200,
            "unknowns": [],
        }
    )
    facts = parse_intake(raw)
    assert isinstance(facts, IntakeFacts)
    assert facts.unknowns == ["cause", "damage_start_date"]


def test_intake_with_a_made_up_date_format_is_a_parse_failure() -> None:
    parsed = parse_intake(json.dumps({"date_of_loss": "last Tuesday"}))
    assert isinstance(parsed, ParseFailure) and "date_of_loss" in parsed.reason


def test_sample_claims_all_load() -> None:
    inbox = ROOT / "claims" / "inbox"
    # Claim files only: attachments (text, PDFs, photos) lie beside them.
    loaded = [load_claim(p) for p in inbox_files(inbox)]
    assert len(loaded) == 19
    with_attachment = next(c for c in loaded if c.claim.claim_id == "C-1043")
    assert "Burst 15 mm copper pipe" in with_attachment.as_text()
    # One sample for each shape a claim arrives in, each read as its kind.
    kinds = {c.claim.claim_id: [d.kind for d in c.documents.values()] for c in loaded}
    assert kinds["C-1051"] == ["pdf"]
    assert kinds["C-1052"] == ["email", "pdf"]  # the e-mail, then the report it carries
    assert kinds["C-2003"] == ["docx"]
    assert kinds["C-2004"] == ["image"]
    # Three name the policy as issued, whose endorsements change the wording they are decided on.
    numbers = {c.claim.claim_id: c.claim.policy_number for c in loaded if c.claim.policy_number}
    assert numbers == {"C-1053": "HM-25-00417", "C-1054": "HM-25-00417", "C-2005": "MA-25-0193"}


def test_claim_file_with_missing_fields_names_them(tmp_path: Path) -> None:
    path = tmp_path / "C-1.json"
    path.write_text(json.dumps({"claim_id": "C-1", "policy_id": "HM-HOME-001"}))
    with pytest.raises(ClaimFileError) as err:
        load_claim(path)
    assert {"claimant", "date_of_loss", "amount"} <= set(err.value.missing)
    assert str(path) in str(err.value)
    # Every bad field is named as key: message, the way config and answers report theirs.
    assert "claimant: Field required" in str(err.value)


def test_a_loaded_claim_carries_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    source = ROOT / "claims" / "inbox" / "C-1042.json"
    path = tmp_path / "C-1042.json"
    path.write_bytes(source.read_bytes())
    first = load_claim(path)
    assert first.sha256 == hashlib.sha256(source.read_bytes()).hexdigest()
    path.write_bytes(source.read_bytes() + b"\n")  # same fields, other bytes
    assert load_claim(path).sha256 != first.sha256


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[1]", "mapping"),
        (json.dumps({"claim_id": "C-1", "amount": "NaN"}), "amount"),
    ],
)
def test_unreadable_claim_files(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "C-1.json"
    path.write_text(content)
    with pytest.raises(ClaimFileError, match=fragment):
        load_claim(path)


def test_attachment_outside_the_claim_folder_is_refused(tmp_path: Path) -> None:
    claim = json.loads((ROOT / "claims" / "inbox" / "C-1042.json").read_text())
    path = tmp_path / "C-1042.json"
    path.write_text(json.dumps({**claim, "attachments": ["../../etc/passwd"]}))
    with pytest.raises(ClaimFileError, match="outside"):
        load_claim(path)
