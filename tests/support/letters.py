"""Deciding a claim through the real crew into the default store, and asking for its letter."""

from __future__ import annotations

import io
from pathlib import Path

from click.testing import CliRunner
from pypdf import PdfReader

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.context import build_context
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Store
from tests.support.crew import FRAUD_EXCLUDED, KNOWN_START, POLICY_COVERED, Script, intake_facts
from tests.support.paths import ROOT


def decided(library: PolicyLibrary, path: Path, script: Script) -> Store:
    """Review the claim at `path` through the real crew, its models scripted, and record its
    decision in the default store."""
    store = Store()
    loaded = load_claim(path)
    settings = build_context(
        library=library, llm_for=script, store=store, config_dir=ROOT / "config"
    )
    record = review_claim(loaded, settings)
    assert record.resolution is not None, record.error
    store.record(record, None, loaded)
    return store


def adjudicated_water() -> Script:
    """The water claim saying when the leak began: the policy agent looks 4.2(b) up and answers
    covered, the fraud agent cites 7.1, and the adjudicator picks the policy agent's reading."""
    ruling = {"choice": "policy", "reason": "A sudden leak: 4.2(b).", "evidence": ["4.2(b)"]}
    return Script(
        intake=[final(KNOWN_START)],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[lookup("HM-HOME-001", "7.1"), final(FRAUD_EXCLUDED)],
        adjudicator=[final(ruling)],
    )


def letter(*args: str) -> tuple[int, bytes, str]:
    """`claims-crew letter ARGS`: its exit code, output and errors."""
    result = CliRunner().invoke(main, ["letter", *args])
    return result.exit_code, result.stdout_bytes, result.stderr


def pdf_text(content: bytes) -> str:
    """A PDF's text as pypdf reads it back, its whitespace collapsed."""
    return " ".join(
        " ".join((page.extract_text() or "").split())
        for page in PdfReader(io.BytesIO(content)).pages
    )


FLOOD_WORDS = "the rising or overflow of any lake, river, stream or the sea"
THEFT_WORDS = "theft or attempted theft involving forcible and violent entry"


def _answer(answer: str, clause: str, words: str, confidence: float) -> dict[str, object]:
    return {
        "answer": answer,
        "confidence": confidence,
        "evidence": [{"clause_id": clause, "quote": words}],
        "facts_relied_on": ["cause"],
        "rationale": f"Clause {clause}.",
    }


def agreeing(claim_file: str) -> Script:
    """Both agents look the deciding clause up, quote it truly and agree: the rules decide."""
    intake, answer, clause, words = AGREEMENTS[claim_file]
    return Script(
        intake=[final(intake)],
        policy=[lookup("HM-HOME-001", clause), final(_answer(answer, clause, words, 0.95))],
        fraud=[lookup("HM-HOME-001", clause), final(_answer(answer, clause, words, 0.9))],
    )


AGREEMENTS = {
    "C-1045.json": (intake_facts("C-1045.json"), "not_covered", "7.2", FLOOD_WORDS),
    "C-1044.yaml": (intake_facts("C-1044.yaml"), "covered", "4.4(a)", THEFT_WORDS),
}
