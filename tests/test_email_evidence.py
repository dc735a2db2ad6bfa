"""Facts found only in an e-mail and in the PDF it carries, through the scripted HTTP provider:
C-1052's cause is quoted from the insured's e-mail and its start date from page 2 of the
plumber's report attached to that e-mail. Each quote verifies citing its document and page; a
sentence the e-mail never says, attributed to it, stays unverified."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support import provider as scripted
from tests.support.email_claim import (
    HOSE_CAUSE,
    HOSE_CLAIM,
    HOSE_COVERED,
    HOSE_EMAIL,
    HOSE_REPORT,
    HOSE_STARTED,
    INTAKE_HOSE,
)
from tests.support.openai_server import StartServer
from tests.support.sample_inbox import ABSTAIN
from tests.support.store import record_for
from tests.support.web import signed_in

pytestmark = pytest.mark.slow


def _review(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    library: PolicyLibrary,
    tmp_path: Path,
    intake: dict[str, Any],
) -> scripted.Reviewed:
    script = scripted.CrewScript()
    script.set("C-1052", "intake", scripted.answer(intake))
    for agent in ("policy", "fraud"):
        script.set("C-1052", agent, scripted.look_up_then("4.2(b)", HOSE_COVERED))
    claim = scripted.sample_copy(tmp_path / "inbox", HOSE_CLAIM, HOSE_EMAIL)
    return scripted.review_claim(openai_server, monkeypatch, library, claim, script)


def test_a_quote_from_the_email_and_one_from_its_pdf_each_cite_their_page(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    reviewed = _review(openai_server, monkeypatch, sample_library, tmp_path, INTAKE_HOSE)
    resolution, prompt, store = reviewed.resolution, reviewed.intake_prompt, reviewed.store
    # Intake was shown the e-mail's decoded body and the report it carries, each by name.
    assert HOSE_EMAIL in prompt and HOSE_REPORT in prompt
    assert HOSE_CAUSE in prompt and HOSE_STARTED in prompt
    assert "=\n" not in prompt.split(HOSE_EMAIL, 1)[1][:2000]  # no quoted-printable left
    facts = {c.name: c for c in resolution.facts}
    cause, started = facts["cause"], facts["damage_start_date"]
    assert (cause.status, cause.where, cause.page) == ("verified", HOSE_EMAIL, 1)
    assert (started.status, started.where, started.page) == ("verified", HOSE_REPORT, 2)
    assert started.cited() == f"{HOSE_REPORT}, page 2"
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "covered")
    # The store keeps the e-mail's record and the report's, in that order, each original kept.
    record = store.claim_record("C-1052")
    assert record is not None and record.claim_sha256 is not None
    kept = store.kept_records("C-1052", record.claim_sha256)
    assert kept is not None and list(kept) == [HOSE_EMAIL, HOSE_REPORT]
    assert all(doc.kept_at for doc in kept.values())


def test_a_sentence_the_email_never_says_stays_unverified(
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    sample_library: PolicyLibrary,
    tmp_path: Path,
) -> None:
    made_up = "the washing machine overflowed while we were away for a week"
    sources = {**INTAKE_HOSE["sources"], "cause": {"where": HOSE_EMAIL, "quote": made_up}}
    made_up_intake = {**INTAKE_HOSE, "sources": sources}
    resolution = _review(
        openai_server, monkeypatch, sample_library, tmp_path, made_up_intake
    ).resolution
    cause = next(c for c in resolution.facts if c.name == "cause")
    assert cause.status == "unverified" and cause.page is None
    assert cause.problem == f"the quote is not in the {HOSE_EMAIL}"
    # The start date, quoted from the PDF the e-mail carries, verifies all the same.
    started = next(c for c in resolution.facts if c.name == "damage_start_date")
    assert (started.status, started.page) == ("verified", 2)


def test_the_page_of_a_pdf_an_email_carries_is_shown_beside_its_quote(
    engine: object, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    claim = scripted.sample_copy(tmp_path / "inbox", HOSE_CLAIM, HOSE_EMAIL)
    loaded = load_claim(claim, originals=tmp_path / "attachments")
    # Fraud abstains, so a person decides, with the facts checked.
    record = record_for(loaded, sample_library, intake=INTAKE_HOSE, fraud=ABSTAIN)
    assert record.resolution is not None and record.resolution.outcome == "ESCALATED"
    store = Store()
    store.record(record, None, loaded)
    page = "/escalations/C-1052/attachments/1/pages/2.png"  # the report, after the e-mail
    c = signed_in(store)
    html = c.get("/escalations/C-1052").text
    assert f'<img src="{page}" alt="{HOSE_REPORT}, page 2"' in html
    response = c.get(page)
    assert response.status_code == 200 and response.content.startswith(b"\x89PNG")
    # The e-mail itself has no page to draw.
    assert c.get("/escalations/C-1052/attachments/0/pages/1.png").status_code == 404
