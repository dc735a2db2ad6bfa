"""The review page's clocks and appeal form in a real headless Chromium, on both engines: the
queue's due column and its overdue filter, an escalation's deadline, and a decided claim
reopened with a new attachment from its page.

"Now" is moved with CLAIMS_CREW_NOW (the server runs in this process), never by waiting."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from claims_crew.desk import Assigner, clocks
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.appeal import appeal
from claims_crew.run.context import build_context
from claims_crew.store import Basis, Store
from tests.support.browser import follow, headless_chromium, needs_chromium, wait_for
from tests.support.crew import water_script
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded
from tests.support.web import review_page

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

pytestmark = [
    pytest.mark.browser,
    needs_chromium,
    pytest.mark.usefixtures("engine"),
]

PLUMBER = "Plumber's report: the joint under the bath split on 3 November 2025."


@pytest.fixture
def served(
    tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, Store, str]]:
    """The page over a store holding C-1042 escalated on the default clock (reported
    2025-11-04: decide by 2025-12-04), on 2025-12-10; appeals run with scripted models."""
    monkeypatch.setenv(clocks.NOW_VARIABLE, "2025-12-10T09:00:00Z")
    # The shipped desk.yaml sends every denial to a second reviewer; here ana's stands alone.
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    (config / "desk.yaml").write_text("four_eyes: {always: []}\n", encoding="utf-8")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    table = clocks.load_clocks(ROOT / "config")
    basis = Basis(
        deadlines=clocks.deadlines(table, water.claim.date_reported, None), assign=Assigner()
    )
    store.record(record_for(water, sample_library), None, water, basis)
    token = store.add_reviewer("ana")

    def run_appeal(claim_id: str, files: list[Path], reason: str) -> str | None:
        settings = build_context(
            library=sample_library, llm_for=water_script(), store=store, config_dir=ROOT / "config"
        )
        return appeal(settings, claim_id, files, reason).error

    with review_page(store, run_appeal) as port:
        yield f"http://127.0.0.1:{port}", store, token


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    with headless_chromium() as driver:
        yield driver


def test_due_dates_and_an_appeal_in_the_browser(
    served: tuple[str, Store, str], browser: WebDriver, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, store, token = served
    browser.get(f"{url}/login")
    browser.find_element(By.ID, "token").send_keys(token)
    follow(browser, browser.find_element(By.ID, "sign-in"))
    due = browser.find_element(By.CSS_SELECTOR, "#queue td.due")
    assert due.text == "overdue by 6 days" and "overdue" in (due.get_attribute("class") or "")
    follow(browser, browser.find_element(By.ID, "overdue-only"))
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Overdue escalations 1")
    follow(browser, browser.find_element(By.LINK_TEXT, "C-1042"))
    wait_for(browser, "clause-offer")  # the page reads the policy for the clauses it offers
    clock = browser.find_element(By.ID, "clock").text
    assert "overdue by 6 days" in clock and "decide by 2025-12-04" in clock

    browser.find_element(By.ID, "decision-not_covered").click()
    browser.find_element(By.ID, "other-clause").send_keys("7.1(a)")
    browser.find_element(By.ID, "reason").send_keys("Seepage, as 7.1 says.")
    follow(browser, browser.find_element(By.ID, "submit-decision"))
    follow(browser, wait_for(browser, "confirm-decision"))
    assert "ana" in wait_for(browser, "decided").text
    assert not browser.find_elements(By.ID, "due")  # a decided escalation's clock is stopped

    report = tmp_path / "plumber-report.txt"
    report.write_text(PLUMBER, encoding="utf-8")
    browser.find_element(By.ID, "appeal-files").send_keys(str(report))
    browser.find_element(By.ID, "appeal-reason").send_keys("The plumber dates the leak.")
    follow(browser, browser.find_element(By.ID, "submit-appeal"))
    # The answer comes once the claim is reviewed again: wait for the reopened escalation's
    # form, which the decided page did not have (a page condition, however long that takes).
    WebDriverWait(browser, 300).until(lambda driver: driver.find_elements(By.ID, "submit-decision"))

    # Back in the queue for someone other than ana, on a new clock from the day of the appeal.
    clock = browser.find_element(By.ID, "clock").text
    assert "due in 30 days" in clock and "not for ana" in clock, clock
    assert "claimant appeals" in browser.find_element(By.ID, "question").text
    trail = browser.find_element(By.ID, "audit").text
    assert "human:ana" in trail and "Appealed (The plumber dates the leak.)" in trail
    reopened = store.escalation("C-1042")
    assert reopened.state == "open" and reopened.excluded_reviewers == ("ana",)
    assert store.verify_audit().ok
