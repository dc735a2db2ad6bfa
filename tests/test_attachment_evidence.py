"""A fact found only in a PDF attachment, through the scripted HTTP provider: C-1049's plumber's
report says on its second page when the damage started. The quote that settles it names the
report and the page; a sentence the report never says, attributed to it, settles nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import Resolution
from claims_crew.run.batch import run_batch
from claims_crew.store import Store
from tests.support.attachments import (
    INTAKE_SPLIT,
    POLICE_REPORT,
    SPLIT_CLAIM,
    SPLIT_MADE_UP,
    SPLIT_REPORT,
    SPLIT_RULING,
    SPLIT_STARTED,
    THEFT_CLAIM,
)
from tests.support.crew import FRAUD_EXCLUDED, POLICY_COVERED, start_date_answer
from tests.support.ocr import needs_tesseract
from tests.support.openai_server import OpenAIServer, StartServer
from tests.support.provider import (
    CrewScript,
    agent_of,
    answer,
    look_up_then,
    point_model_at,
    provider_settings,
)
from tests.support.sample_inbox import ABSTAIN

pytestmark = pytest.mark.slow


def _inbox(tmp_path: Path) -> Path:
    """C-1049 and its report, copied so that a test may change the report afterwards."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(SPLIT_CLAIM, inbox)
    shutil.copy(SPLIT_CLAIM.parent / SPLIT_REPORT, inbox)
    return inbox / SPLIT_CLAIM.name


def _review(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    library: PolicyLibrary,
    tmp_path: Path,
    started_quote: str,
    started: str,
) -> tuple[Resolution, OpenAIServer, Store]:
    script = CrewScript()
    script.set(
        "C-1049",
        "intake",
        answer(INTAKE_SPLIT),
        answer(start_date_answer(started, started_quote, SPLIT_REPORT)),
    )
    script.set("C-1049", "policy", look_up_then("4.2(b)", POLICY_COVERED))
    script.set("C-1049", "fraud", look_up_then("7.1", FRAUD_EXCLUDED))
    script.set("C-1049", "adjudicator", answer(SPLIT_RULING))
    server = openai_server(script)
    point_model_at(server, monkeypatch)
    store = Store()  # CLAIMS_CREW_HOME's, which `review show` reads
    (item,) = run_batch([_inbox(tmp_path)], provider_settings(library, store))
    assert item.record is not None and item.record.resolution is not None, item
    return item.record.resolution, server, store


def test_the_plumbers_pdf_settles_the_start_date_citing_its_page(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    resolution, server, store = _review(
        openai_server, monkeypatch, sample_library, tmp_path, SPLIT_STARTED, "2026-01-16"
    )
    # Intake was shown the report's text, page by page, read from the PDF's text layer.
    [first] = [e for e in server.exchanges if agent_of(e.request) == "intake"][:1]
    assert "[page 2]" in first.request.text and SPLIT_STARTED in first.request.text
    targeted = resolution.targeted
    assert targeted is not None and targeted.verified and targeted.settled
    [said] = targeted.answers
    assert (said.status, said.value, said.where, said.page) == (
        "verified",
        "2026-01-16",
        SPLIT_REPORT,
        2,
    )
    assert said.ocr_confidence is None  # a text layer, not OCR
    started = next(c for c in resolution.facts if c.name == "damage_start_date")
    assert (started.status, started.page, started.cited()) == (
        "verified",
        2,
        f"{SPLIT_REPORT}, page 2",
    )
    assert (resolution.outcome, resolution.answer) == ("ADJUDICATED", "covered")
    # The page is kept with the decision, for every view that shows it later.
    kept = store.claim_record("C-1049")
    assert kept is not None and kept.resolution is not None
    assert kept.resolution.facts == resolution.facts


def test_a_sentence_the_report_never_says_stays_unverified(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    resolution, _, _ = _review(
        openai_server, monkeypatch, sample_library, tmp_path, SPLIT_MADE_UP, "2026-01-10"
    )
    targeted = resolution.targeted
    assert targeted is not None and not targeted.verified and not targeted.settled
    [said] = targeted.answers
    assert said.status == "unverified" and said.page is None
    assert said.problem == f"the quote is not in the {SPLIT_REPORT}"
    started = next(c for c in resolution.facts if c.name == "damage_start_date")
    assert started.status == "unknown"  # the made-up date never became a fact
    assert resolution.outcome == "ESCALATED"
    shown = CliRunner().invoke(main, ["review", "show", "C-1049"], env={"COLUMNS": "300"})
    assert f"damage_start_date unverified (the quote is not in the {SPLIT_REPORT})" in shown.output


THEFT_QUOTE = (
    "Between 22:00 on 1 February 2026 and 07:30 on 2 February 2026 the offenders forced the "
    "kitchen window with a tool"
)
INTAKE_THEFT = {
    "loss_type": "theft",
    "cause": "burglary through a forced window",
    "date_of_loss": "2026-02-01",
    "damage_start_date": None,
    "amount_claimed": 3100,
    "unknowns": ["damage_start_date"],
    "sources": {
        "loss_type": {"where": "description", "quote": "Our house was broken into overnight"},
        "cause": {"where": POLICE_REPORT, "quote": THEFT_QUOTE},
        "date_of_loss": {"where": POLICE_REPORT, "quote": THEFT_QUOTE},
        "amount_claimed": {"where": "amount"},
    },
}


@needs_tesseract
def test_a_fact_quoted_from_a_scanned_report_cites_its_page_and_ocr(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    script = CrewScript()
    script.set("C-1050", "intake", answer(INTAKE_THEFT))
    for agent in ("policy", "fraud"):
        script.set("C-1050", agent, look_up_then("4.4(a)", ABSTAIN))
    point_model_at(openai_server(script), monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(THEFT_CLAIM, inbox)
    shutil.copy(THEFT_CLAIM.parent / POLICE_REPORT, inbox)
    (item,) = run_batch([inbox / THEFT_CLAIM.name], provider_settings(sample_library, Store()))
    assert item.record is not None and item.record.resolution is not None, item
    resolution = item.record.resolution
    assert resolution.outcome == "ESCALATED"
    loss = next(c for c in resolution.facts if c.name == "date_of_loss")
    assert (loss.status, loss.where, loss.page) == ("verified", POLICE_REPORT, 1)
    assert loss.ocr_confidence is not None and not loss.low_confidence
    shown = CliRunner().invoke(main, ["review", "show", "C-1050"], env={"COLUMNS": "400"})
    cited = f"({POLICE_REPORT}, page 1 (OCR {loss.ocr_confidence:.2f}))"
    assert cited in shown.output, shown.output
