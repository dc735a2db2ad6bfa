"""The review page in a real headless Chromium: sign in, read one escalation, decide it on a
clause (the letter, a PDF read back, quotes it and states the amount).

Debian's chromium and chromium-driver are used as installed (.ci/run installs them); nothing is
downloaded. A screenshot of the escalation page is saved in tests/artifacts/.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from claims_crew.cli import main
from claims_crew.letters.wording import LetterStyle, money
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.browser import follow, headless_chromium, needs_chromium, sign_in, wait_for
from tests.support.paths import ROOT
from tests.support.store import record_for, water_loaded
from tests.support.web import review_page

ARTIFACTS = ROOT / "tests" / "artifacts"
DATED = "The plumber dates the burst pipe to 3 November: sudden, not seepage."

pytestmark = [
    pytest.mark.browser,
    needs_chromium,
    # The page a team shares: on the SQLite file and on PostgreSQL.
    pytest.mark.usefixtures("engine"),
]


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


@pytest.fixture
def browser() -> Iterator[object]:
    with headless_chromium() as driver:
        yield driver


def test_a_reviewer_decides_an_escalation_in_the_browser(
    served: tuple[str, Store, str], browser: object
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver

    assert isinstance(browser, WebDriver)
    url, store, token = served
    browser.get(f"{url}/escalations/C-1042")
    assert browser.current_url == f"{url}/login"  # no session yet
    browser.find_element(By.ID, "token").send_keys(token)
    follow(browser, browser.find_element(By.ID, "sign-in"))
    assert browser.find_element(By.ID, "reviewer-name").text == "ana"
    follow(browser, browser.find_element(By.LINK_TEXT, "C-1042"))

    wait_for(browser, "clause-offer")  # the page reads the policy for the clauses it offers
    policy = browser.find_element(By.ID, "side-policy")
    fraud = browser.find_element(By.ID, "side-fraud")
    question = browser.find_element(By.ID, "question")
    assert "When did the damage start?" in question.text
    assert "sudden and accidental discharge of water" in policy.text
    assert "continuous or repeated seepage" in fraud.text
    assert "verified" in policy.text and "tool-sourced" in policy.text
    assert "from memory" in fraud.text
    # Side by side, and both within one screen with the question.
    height = browser.execute_script("return window.innerHeight")
    width = browser.execute_script("return window.innerWidth")
    assert policy.rect["y"] == fraud.rect["y"]
    assert policy.rect["x"] + policy.rect["width"] <= fraud.rect["x"]
    assert fraud.rect["x"] + fraud.rect["width"] <= width
    for element in (question, policy, fraud):
        assert 0 <= element.rect["y"] < height
    for text in browser.find_elements(By.CSS_SELECTOR, ".clause-text"):
        assert text.is_displayed() and text.rect["y"] < height
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "review-page.png"
    assert browser.save_screenshot(str(shot))

    browser.find_element(By.ID, "decision-covered").click()
    browser.find_element(By.CSS_SELECTOR, 'input[name="clause"][value="4.2(b)"]').click()
    browser.find_element(By.ID, "reason").send_keys("The plumber dates the leak to 3 November.")
    follow(browser, browser.find_element(By.ID, "submit-decision"))
    follow(browser, wait_for(browser, "confirm-decision"))  # nothing is recorded before it
    decided = wait_for(browser, "decided")
    assert "covered" in decided.text and "ana" in decided.text
    trail = browser.find_element(By.ID, "audit").text
    assert "escalated" in trail and "human:ana" in trail
    assert "The plumber dates the leak to 3 November." in trail
    [review] = store.reviews()
    assert review.reviewer == "ana" and review.decision == "covered"
    assert store.verify_audit().ok


def test_my_queue_and_a_denial_proposed_by_one_reviewer_confirmed_by_another(
    tmp_path: Path,
    sample_library: PolicyLibrary,
    browser: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver

    from claims_crew.desk import Assigner
    from claims_crew.records import ReviewerSettings
    from claims_crew.store import Basis

    assert isinstance(browser, WebDriver)
    shutil.copytree(ROOT / "config", tmp_path / "config")  # every denial needs four eyes
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(tmp_path / "config"))
    store = Store()
    tokens = {n: store.add_reviewer(n, ReviewerSettings(lines=["home"])) for n in ("ana", "cy")}
    for claim_id in ("C-1", "C-2"):  # home claims: C-1 to ana, C-2 to cy
        loaded = water_loaded(tmp_path / "inbox", claim_id)
        store.record(
            record_for(loaded, sample_library), None, loaded, Basis(line="home", assign=Assigner())
        )

    def sign_in(url: str, name: str) -> None:
        browser.delete_all_cookies()
        browser.get(f"{url}/login")
        browser.find_element(By.ID, "token").send_keys(tokens[name])
        follow(browser, browser.find_element(By.ID, "sign-in"))
        assert browser.find_element(By.ID, "reviewer-name").text == name

    with review_page(store) as port:
        url = f"http://127.0.0.1:{port}"
        sign_in(url, "ana")
        follow(browser, browser.find_element(By.ID, "my-queue"))
        queue = browser.find_element(By.ID, "queue").text
        assert "My queue" in browser.find_element(By.TAG_NAME, "h1").text
        assert "C-1" in queue and "C-2" not in queue
        follow(browser, browser.find_element(By.LINK_TEXT, "C-1"))
        wait_for(browser, "clause-offer")  # the page reads the policy for the clauses it offers
        assert "Assigned to ana" in browser.find_element(By.ID, "assigned").text
        browser.find_element(By.ID, "decision-not_covered").click()
        browser.find_element(By.ID, "other-clause").send_keys("7.1(a)")  # any clause in force
        browser.find_element(By.ID, "reason").send_keys("Seepage over weeks.")
        follow(browser, browser.find_element(By.ID, "submit-decision"))
        assert "7.1(a)" in wait_for(browser, "chosen-clause-1").text
        follow(browser, browser.find_element(By.ID, "confirm-decision"))
        proposal = browser.find_element(By.ID, "proposal").text
        assert "not_covered proposed by ana" in proposal
        assert browser.find_elements(By.ID, "own-proposal")  # no Confirm for the proposer
        assert not browser.find_elements(By.ID, "confirm-proposal")

        sign_in(url, "cy")
        browser.get(f"{url}/escalations/C-1")
        # The second reviewer sees the clause the denial rests on before confirming it.
        resting = browser.find_element(By.ID, "proposal-clause-1").text
        assert "7.1(a)" in resting and "continuous or repeated seepage" in resting
        follow(browser, browser.find_element(By.ID, "confirm-proposal"))
        decided = wait_for(browser, "decided").text
        assert "not_covered" in decided and "cy" in decided
        trail = browser.find_element(By.ID, "audit").text
        assert "proposed" in trail and "human:ana" in trail and "human:cy" in trail
    assert store.escalation("C-1").decided_by == "cy"
    assert store.verify_audit().ok


def test_a_person_decides_on_a_clause_and_the_letter_quotes_it(
    served: tuple[str, Store, str], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    url, store, token = served
    with headless_chromium() as browser:
        sign_in(browser, url, token)
        browser.get(f"{url}/escalations/C-1042")
        offer = wait_for(browser, "clause-offer")
        first = offer.find_element(By.CSS_SELECTOR, 'input[name="clause"]')
        assert first.get_attribute("value") == "4.2(b)"  # the clause the re-read verified
        browser.find_element(By.ID, "decision-covered").click()
        first.click()
        browser.find_element(By.ID, "reason").send_keys(DATED)
        follow(browser, browser.find_element(By.ID, "submit-decision"))

        step = wait_for(browser, "confirm-step")
        clause = step.find_element(By.ID, "chosen-clause-1")
        quoted = words(clause.find_element(By.CSS_SELECTOR, ".clause-text").text)
        assert quoted.startswith("(b) sudden and accidental discharge of water")
        amount = step.find_element(By.ID, "confirm-amount").text
        assert amount == "3700 GBP"  # 4,200 claimed, less 4.2's 500 deductible
        assert store.reviews() == [] and store.escalation("C-1042").state == "open"

        follow(browser, step.find_element(By.ID, "confirm-decision"))
        decided = wait_for(browser, "decided").text
        assert "covered" in decided and "ana" in decided
        assert DATED in browser.find_element(By.ID, "audit").text

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
    # The amount as the claimant's locale writes it (config/letters/letters.yaml: en_GB).
    assert f"We will pay {money(review.payable.amount, 'GBP', LetterStyle())}." in letter
