"""A fact found only in a filled form's fields, through the scripted HTTP provider: C-1051's
property loss notice says when and how the loss happened in its fields alone. The quotes that
settle the facts name the form and its page; a value the form does not hold, or a quote that
runs from one field into the next, settles nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims_crew.policy.library import PolicyLibrary
from tests.support.forms import (
    FORM_CAUSE,
    FORM_DATE,
    INTAKE_FORM,
    LOSS_NOTICE,
    LOSS_NOTICE_CLAIM,
    STORM_CLAUSE,
)
from tests.support.openai_server import StartServer
from tests.support.provider import (
    CrewScript,
    Reviewed,
    answer,
    look_up_then,
    review_claim,
    sample_copy,
)
from tests.support.sample_inbox import claim_answer

pytestmark = pytest.mark.slow


def _review(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    library: PolicyLibrary,
    tmp_path: Path,
    intake: dict[str, Any],
) -> Reviewed:
    script = CrewScript()
    script.set("C-1051", "intake", answer(intake))
    for agent in ("policy", "fraud"):
        covered = claim_answer("covered", "4.3(a)", STORM_CLAUSE)
        script.set("C-1051", agent, look_up_then("4.3(a)", covered))
    claim = sample_copy(tmp_path / "inbox", LOSS_NOTICE_CLAIM, LOSS_NOTICE)
    return review_claim(openai_server, monkeypatch, library, claim, script)


def test_facts_quoted_from_the_filled_fields_verify_citing_the_form_and_page(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    reviewed = _review(openai_server, monkeypatch, sample_library, tmp_path, INTAKE_FORM)
    resolution = reviewed.resolution
    # Intake was shown the form's values under its printed labels.
    assert "Form fields:" in reviewed.intake_prompt and FORM_DATE in reviewed.intake_prompt
    facts = {c.name: c for c in resolution.facts}
    for name in ("loss_type", "cause", "date_of_loss"):
        fact = facts[name]
        assert (fact.status, fact.where, fact.page) == ("verified", LOSS_NOTICE, 1), fact
        assert fact.cited() == f"{LOSS_NOTICE}, page 1"
        assert fact.ocr_confidence is None  # from the file's fields, not from OCR
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "covered")
    # The page is kept with the decision, for every view that shows it later.
    kept = reviewed.store.claim_record("C-1051")
    assert kept is not None and kept.resolution is not None
    assert kept.resolution.facts == resolution.facts


def test_a_value_the_form_does_not_hold_stays_unverified(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    sources = dict(INTAKE_FORM["sources"])
    sources["date_of_loss"] = {"where": LOSS_NOTICE, "quote": "Loss incident date: 12/02/2026"}
    # Two fields run together read as one statement nowhere in the form.
    sources["loss_type"] = {"where": LOSS_NOTICE, "quote": f"{FORM_CAUSE} Description of loss"}
    made_up = {**INTAKE_FORM, "date_of_loss": "2026-02-12", "sources": sources}
    resolution = _review(openai_server, monkeypatch, sample_library, tmp_path, made_up).resolution
    facts = {c.name: c for c in resolution.facts}
    loss = facts["date_of_loss"]
    assert (loss.status, loss.page) == ("unverified", None)
    assert loss.problem == f"the quote is not in the {LOSS_NOTICE}"
    joined = facts["loss_type"]
    assert joined.status == "unverified"
    assert joined.problem == f"the quote joins more than one sentence of the {LOSS_NOTICE}"
