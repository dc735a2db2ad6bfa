"""Facts quoted from a Word statement, a spreadsheet and an iPhone photo, through the scripted
HTTP provider: the real crew and readers, only the model scripted. Each quote verifies against
the attachment's text of record and cites the document and its page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import FactCheck, Resolution
from tests.support.attachments import HEIC_CLAIM, HEIC_ESTIMATE, STATEMENT, STATEMENT_CLAIM
from tests.support.ocr import needs_tesseract
from tests.support.office import cached_value, workbook
from tests.support.openai_server import StartServer
from tests.support.provider import CrewScript, answer, look_up_then, review_claim, sample_copy
from tests.support.sample_inbox import ABSTAIN

pytestmark = pytest.mark.slow

VAN_QUOTE = "a white van reversed out of a bay into the front passenger door of my car"
SPREADSHEET = "C-2003-quote.xlsx"


def _intake(where: str, cause: str, amount: str, claimed: float) -> dict[str, Any]:
    """Intake's answer: the cause and the amount each quoted from the attachment `where`."""
    return {
        "loss_type": "vehicle_damage",
        "cause": "another vehicle hit the insured car",
        "date_of_loss": None,
        "damage_start_date": None,
        "amount_claimed": claimed,
        "unknowns": ["date_of_loss"],
        "sources": {
            "cause": {"where": where, "quote": cause},
            "amount_claimed": {"where": where, "quote": amount},
        },
    }


def _review(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    library: PolicyLibrary,
    claim: Path,
    intake: dict[str, Any],
) -> tuple[Resolution, str]:
    """The claim reviewed with intake answering `intake`; its resolution and what intake saw."""
    claim_id = json.loads(claim.read_text(encoding="utf-8"))["claim_id"]
    script = CrewScript()
    script.set(claim_id, "intake", answer(intake))
    for agent in ("policy", "fraud"):
        script.set(claim_id, agent, look_up_then("1", ABSTAIN, "MR-AUTO-001"))
    reviewed = review_claim(openai_server, monkeypatch, library, claim, script)
    return reviewed.resolution, reviewed.intake_prompt


def _fact(resolution: Resolution, name: str) -> FactCheck:
    return next(c for c in resolution.facts if c.name == name)


def test_facts_quoted_from_the_word_statement_verify_on_its_page(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    claim = sample_copy(tmp_path, STATEMENT_CLAIM, STATEMENT)
    intake = _intake(STATEMENT, VAN_QUOTE, "Total | 1,710.00", 1710)
    resolution, shown = _review(openai_server, monkeypatch, sample_library, claim, intake)
    assert VAN_QUOTE in shown and "Total | 1,710.00" in shown  # a paragraph and a table row
    cause, amount = _fact(resolution, "cause"), _fact(resolution, "amount_claimed")
    assert (cause.status, cause.where, cause.page) == ("verified", STATEMENT, 1)
    assert (amount.status, amount.page, amount.cited()) == ("verified", 1, f"{STATEMENT}, page 1")
    assert cause.ocr_confidence is None  # the file's own text, not OCR


def test_a_formulas_cached_value_verifies_citing_the_sheet(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    rows: list[list[object]] = [
        ["Item", "Cost"],
        ["Front passenger door, repair and refinish", 1150],
        ["Door mirror, replace", 240],
        ["Labour, 4 hours", 320],
        ["Total", "=SUM(B2:B4)"],
    ]
    data = workbook({"Claim": [["Van reversed into the passenger door"]], "Quote": rows})
    data = cached_value(data, "xl/worksheets/sheet2.xml", "SUM(B2:B4)", "1710")
    (tmp_path / SPREADSHEET).write_bytes(data)
    fields = json.loads(STATEMENT_CLAIM.read_text(encoding="utf-8"))
    claim = tmp_path / "C-2003.json"
    claim.write_text(json.dumps({**fields, "attachments": [SPREADSHEET]}), encoding="utf-8")
    intake = _intake(
        SPREADSHEET, "Van reversed into the passenger door", "A5: Total | B5: 1710", 1710
    )
    resolution, shown = _review(openai_server, monkeypatch, sample_library, claim, intake)
    assert "[page 2]\nQuote\nA1: Item | B1: Cost" in shown
    cause, amount = _fact(resolution, "cause"), _fact(resolution, "amount_claimed")
    assert (cause.status, cause.page) == ("verified", 1)
    assert (amount.status, amount.where, amount.page) == ("verified", SPREADSHEET, 2)
    assert amount.cited() == f"{SPREADSHEET}, page 2"


@needs_tesseract
def test_a_fact_quoted_from_a_heic_photo_verifies_citing_its_page_and_ocr(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    claim = sample_copy(tmp_path, HEIC_CLAIM, HEIC_ESTIMATE)
    cracked = "Windscreen cracked across the driver's side by a stone"
    intake = _intake(HEIC_ESTIMATE, cracked, "Estimate total: 970.00", 970)
    resolution, shown = _review(openai_server, monkeypatch, sample_library, claim, intake)
    assert "Estimate total: 970.00" in shown
    amount = _fact(resolution, "amount_claimed")
    assert (amount.status, amount.where, amount.page) == ("verified", HEIC_ESTIMATE, 1)
    assert amount.ocr_confidence is not None and not amount.low_confidence
    assert _fact(resolution, "cause").status == "verified"
