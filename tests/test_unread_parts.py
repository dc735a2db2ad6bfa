"""What intake could not read weighs on the decision: a claim whose attachments hold a part no
reader could read (a file an e-mail carries, a form's XFA packet) is escalated (unread_part), the
part named, unless the part is decoration; the views name every unread part.

The records are made here as a reader leaves them (AttachmentRecord with `unread`) and handed to
the real crew run with the scripted model, so the check is the resolver's own, read from the
records, not from what a model says it read.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.api.views import claim_view
from claims_crew.claim_files import LoadedClaim, load_claim
from claims_crew.cli import main
from claims_crew.documents.record import AttachmentRecord, PageText, UnreadPart
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ClaimRecord
from claims_crew.resolver import resolve
from claims_crew.resolver.case_files import load_case
from claims_crew.resolver.config import load_config
from claims_crew.resolver.external_codes import load_external_codes
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Store
from tests.support.amounts import theft_script
from tests.support.browser import headless_chromium, needs_chromium, sign_in
from tests.support.crew import settings
from tests.support.paths import ROOT
from tests.support.web import review_page

RULES = load_config(ROOT / "config")
CASES = ROOT / "examples" / "cases"
THEFT = ROOT / "claims" / "inbox" / "C-1044.yaml"

PDF_PART = UnreadPart(
    name="police.eml/broken.pdf",
    content_type="application/pdf",
    size=48_213,
    code="unreadable",
    reason="the PDF ends before its cross-reference table",
)
LOGO = UnreadPart(
    name="police.eml/part-1.bin",
    content_type="image/gif",
    size=3_100,
    code="unsupported_type",
    decoration=True,
)


def mail_with(*parts: UnreadPart) -> AttachmentRecord:
    """The police's e-mail as a reader keeps it: its body read, the parts it could not read."""
    body = "Crime reference 4471/25: forced entry at the back door on 14 September 2025."
    return AttachmentRecord(
        name="police.eml",
        kind="email",
        sha256="0" * 64,
        size=52_000,
        pages=[PageText(number=1, text=body)],
        unread=list(parts),
    )


def theft_with(*parts: UnreadPart) -> LoadedClaim:
    """C-1044 with the police's e-mail among its attachments' records."""
    loaded = load_claim(THEFT)
    return replace(loaded, documents={**loaded.documents, "police.eml": mail_with(*parts)})


def reviewed(loaded: LoadedClaim, library: PolicyLibrary, tmp_path: Path) -> ClaimRecord:
    """C-1044 through the crew: both agents answer covered on 4.4(a), which they looked up."""
    return review_claim(loaded, settings(library, theft_script(), tmp_path))


def test_a_part_not_read_escalates_an_agreement_the_crew_would_have_accepted(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    plain = reviewed(load_claim(THEFT), sample_library, tmp_path / "plain").resolution
    assert plain is not None and (plain.outcome, plain.reason_codes) == ("ACCEPTED", [])
    record = reviewed(theft_with(LOGO, PDF_PART), sample_library, tmp_path / "unread")
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.rule) == ("ESCALATED", "agree")
    assert resolution.reason_codes == ["unread_part"]
    assert (resolution.would_have_been, resolution.answer) == ("ACCEPTED", None)
    assert "police.eml/broken.pdf (unreadable)" in resolution.reason
    assert "police.eml/broken.pdf" in (resolution.question or "")
    # Decoration is listed on the claim, but is no reason to hold a decision back.
    assert "part-1.bin" not in resolution.reason
    [step] = [s for s in resolution.trail if s.reason_code == "unread_part"]
    assert step.rule == "gates" and step.fired
    codes = load_external_codes(ROOT / "config")
    assert codes is not None and codes.for_reasons(["unread_part"]) == ["R93"]


def test_a_claim_whose_only_unread_part_is_decoration_is_decided_as_before(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    record = reviewed(theft_with(LOGO), sample_library, tmp_path)
    resolution = record.resolution
    assert resolution is not None, record.error
    assert (resolution.outcome, resolution.answer) == ("ACCEPTED", "covered")
    assert resolution.reason_codes == []


def test_an_escalation_for_another_reason_names_the_unread_part_too(
    sample_library: PolicyLibrary,
) -> None:
    """The seed's case with no damage start date is a person's already; the person is told
    what intake could not read as well, beside the rules' own reason."""
    case = load_case(CASES / "water-damage-start-unknown.json", sample_library, RULES)
    plain = resolve(case, RULES)
    assert plain.outcome == "ESCALATED" and "unread_part" not in plain.reason_codes
    resolution = resolve(replace(case, unread=(PDF_PART,)), RULES)
    assert resolution.reason_codes == [*plain.reason_codes, "unread_part"]
    assert resolution.reason.startswith(plain.reason)
    assert "police.eml/broken.pdf (unreadable)" in resolution.reason
    decorated = resolve(replace(case, unread=(LOGO,)), RULES)
    assert decorated.reason_codes == plain.reason_codes


# ---- where a person reads them ---------------------------------------------------------------

LOGO_LINE = "Not read: police.eml/part-1.bin, image/gif, 3 KB: unsupported_type (decoration)"
PDF_LINE = "Not read: police.eml/broken.pdf, application/pdf, 47 KB: unreadable"


def escalated_store(library: PolicyLibrary, tmp_path: Path) -> Store:
    """C-1044 with the e-mail's broken PDF and its logo, escalated and stored as intake keeps
    a claim file (its attachments' records with it)."""
    loaded = theft_with(LOGO, PDF_PART)
    store = Store()
    store.record(reviewed(loaded, library, tmp_path), None, loaded)
    return store


@pytest.mark.slow
@pytest.mark.usefixtures("engine")
def test_review_show_claim_show_and_the_api_list_every_unread_part(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    store = escalated_store(sample_library, tmp_path)
    shown = CliRunner().invoke(main, ["review", "show", "C-1044"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert f"{PDF_LINE} (the PDF ends before its cross-reference table)" in shown.output
    assert LOGO_LINE in shown.output
    as_json = CliRunner().invoke(main, ["review", "show", "C-1044", "--json"])
    assert [p["line"] for p in json.loads(as_json.stdout)["unread"]] == [LOGO_LINE, PDF_LINE]
    claim = CliRunner().invoke(main, ["claim", "show", "C-1044"], env={"COLUMNS": "200"})
    assert claim.exit_code == 0, claim.output
    assert PDF_LINE in claim.output and LOGO_LINE in claim.output
    status = store.claim_state("C-1044")
    assert status is not None
    view = claim_view(store, "/api/v1", status, None).model_dump(mode="json")
    assert view["unread"] == [
        {
            "name": "police.eml/part-1.bin",
            "content_type": "image/gif",
            "size": 3_100,
            "code": "unsupported_type",
            "reason": "",
            "decoration": True,
        },
        {
            "name": "police.eml/broken.pdf",
            "content_type": "application/pdf",
            "size": 48_213,
            "code": "unreadable",
            "reason": "the PDF ends before its cross-reference table",
            "decoration": False,
        },
    ]
    assert view["decision"]["reason_codes"] == ["unread_part"]


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
@pytest.mark.usefixtures("engine")
def test_the_review_page_lists_every_unread_part(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    store = escalated_store(sample_library, tmp_path)
    token = store.add_reviewer("ana")
    with review_page(store) as port, headless_chromium() as browser:
        url = f"http://127.0.0.1:{port}"
        sign_in(browser, url, token)
        browser.get(f"{url}/escalations/C-1044")
        parts = browser.find_elements(By.CSS_SELECTOR, "#unread li")
        assert [p.text for p in parts] == [
            LOGO_LINE,
            f"{PDF_LINE} (the PDF ends before its cross-reference table)",
        ]
        assert [p.get_attribute("class") for p in parts] == [
            "unread-part decoration",
            "unread-part",
        ]
        assert all(p.is_displayed() for p in parts)
        assert "unread_part" in browser.find_element(By.CSS_SELECTOR, "p.why").text
