"""An endorsement's reading confirmed on the page, in a real headless Chromium: a lead goes from
the header to the endorsements, opens HM-E-09 (not confirmed), sees each change beside the
endorsement's own sentence, the clause it reaches with the form's words and the words in force,
and the text no change covers, and confirms it; policies/confirmations.yaml then holds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims_crew.policy.confirmations import load_confirmations
from claims_crew.records import ReviewerSettings
from claims_crew.store import Store
from tests.support.browser import (
    console_errors,
    follow,
    headless_chromium,
    needs_chromium,
    sign_in,
)
from tests.support.paths import ROOT
from tests.support.readings import unconfirmed_policies
from tests.support.web import review_page

ARTIFACTS = ROOT / "tests" / "artifacts"

pytestmark = [pytest.mark.browser, needs_chromium]


def test_a_lead_checks_a_reading_and_confirms_it(
    tmp_path: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from selenium.webdriver.common.by import By

    root = unconfirmed_policies(tmp_path, session_cache, monkeypatch)
    store = Store(tmp_path / "claims.sqlite")
    token = store.add_reviewer("lee", ReviewerSettings(role="lead"))
    with review_page(store) as port, headless_chromium() as browser:
        url = f"http://127.0.0.1:{port}"
        sign_in(browser, url, token)
        follow(browser, browser.find_element(By.ID, "readings-link"))
        follow(browser, browser.find_element(By.LINK_TEXT, "HM-E-09"))
        assert browser.find_element(By.ID, "reading-state").text == "unconfirmed"

        added = browser.find_element(By.ID, "change-1").text
        assert "The endorsement says: “The following exclusion is added to section 7:”" in added
        assert "→ clause 7" in added and "page 1" in added
        assert "7 EXCLUSIONS" in added  # the form's words
        assert "7.12 Hot tubs and spa pools" in added  # in force after it
        replaced = browser.find_element(By.ID, "change-2").text
        assert "“Clause 8.3 is replaced by the following:”" in replaced
        assert "up to £500" in replaced and "up to £750" in replaced  # the form's; in force
        unmatched = browser.find_element(By.ID, "unmatched").text
        assert "none: every change reaches a clause of the form" in unmatched
        uncovered = browser.find_element(By.ID, "uncovered").text
        assert "This endorsement changes the policy. Please read it carefully." in uncovered
        assert "Hot tubs and spa pools · Page 1 of 1" in uncovered
        assert "7.12" not in uncovered and "8.3" not in uncovered

        # The page after the POST, not the one the button was on: `follow` waits for it.
        follow(browser, browser.find_element(By.ID, "confirm-reading"))
        assert browser.find_element(By.ID, "reading-state").text == "confirmed"
        why = browser.find_element(By.ID, "reading-why").text
        assert why.startswith("Confirmed by lee at ")
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "endorsement-reading.png"))
        # Chromium asks for /favicon.ico by itself, which the page does not serve; nothing else.
        assert [e for e in console_errors(browser) if "/favicon.ico " not in e] == []
    kept = load_confirmations(root)
    assert list(kept) == ["HM-E-09"] and kept["HM-E-09"].by == "lee"
