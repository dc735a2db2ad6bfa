"""A person decides an escalation on a clause through the review page, in a real headless
Chromium, on both engines: the clause the re-read verified is ticked, the confirmation step
reads it back with the amount computed from it, Confirm records it; the letter, written as a
PDF by `claims-crew letter` and read back, quotes the clause and states the amount."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.browser import headless_chromium, needs_chromium, sign_in
from tests.support.store import record_for, water_loaded
from tests.support.web import review_page

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.usefixtures("engine")]

REASON = "The plumber dates the burst pipe to 3 November: sudden, not seepage."


@pytest.fixture
def served(tmp_path: Path, sample_library: PolicyLibrary) -> Iterator[tuple[str, Store, str]]:
    """The review page on a free local port, over a store with the water claim escalated."""
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    store.record(record_for(water, sample_library), None, water)
    token = store.add_reviewer("ana")
    with review_page(store) as port:
        yield f"http://127.0.0.1:{port}", store, token


def words(text: str) -> str:
    """Text with its line breaks and runs of spaces as single spaces, as a PDF wraps it."""
    return " ".join(text.split())


def test_a_person_decides_on_a_clause_and_the_letter_quotes_it(
    served: tuple[str, Store, str], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    url, store, token = served
    with headless_chromium() as browser:
        sign_in(browser, url, token)
        browser.get(f"{url}/escalations/C-1042")
        offer = browser.find_element(By.ID, "clause-offer")
        first = offer.find_element(By.CSS_SELECTOR, 'input[name="clause"]')
        assert first.get_attribute("value") == "4.2(b)"  # the clause the re-read verified
        browser.find_element(By.ID, "decision-covered").click()
        first.click()
        browser.find_element(By.ID, "reason").send_keys(REASON)
        browser.find_element(By.ID, "submit-decision").click()

        step = browser.find_element(By.ID, "confirm-step")  # waits for the confirmation
        clause = step.find_element(By.ID, "chosen-clause-1")
        quoted = words(clause.find_element(By.CSS_SELECTOR, ".clause-text").text)
        assert quoted.startswith("(b) sudden and accidental discharge of water")
        amount = step.find_element(By.ID, "confirm-amount").text
        assert amount == "3700 GBP"  # 4,200 claimed, less 4.2's 500 deductible
        assert store.reviews() == [] and store.escalation("C-1042").state == "open"

        step.find_element(By.ID, "confirm-decision").click()
        decided = browser.find_element(By.ID, "decided").text
        assert "covered" in decided and "ana" in decided
        assert REASON in browser.find_element(By.ID, "audit").text

    [review] = store.reviews()
    assert [c.clause_id for c in review.clauses] == ["4.2(b)"]
    assert review.payable is not None and f"{review.payable.amount} GBP" == amount
    assert store.verify_audit().ok

    out = tmp_path / "C-1042.pdf"
    result = CliRunner().invoke(main, ["letter", "C-1042", "--format", "pdf", "--out", str(out)])
    assert result.exit_code == 0, result.output
    letter = words("\n".join(page.extract_text() for page in PdfReader(out).pages))
    assert "4.2(b)" in letter
    assert quoted in letter  # the clause's words in force, quoted
    assert f"Payable: {amount}" in letter
