"""The queue's layout in a real headless Chromium at a laptop's 1280 px: a long question squeezes
the first column, and the claim ids in it still read on one line ("C-1046", never "C-" over
"1046")."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.browser import headless_chromium, needs_chromium, sign_in
from tests.support.store import record_for, water_loaded
from tests.support.web import review_page

pytestmark = [pytest.mark.browser, needs_chromium]

# As long as the questions a conflict over two dates asks: long enough to squeeze the queue.
LONG_QUESTION = (
    "damage_start_date, date_of_loss: When did the damage start, and was it before the "
    "policy's period began? The plumber's report and the claimant's statement disagree on "
    "the date, and neither names the day the leak was first seen."
)
CLAIMS = ("C-1042", "C-1046", "C-1050")


def _escalated(store: Store, library: PolicyLibrary, folder: Path) -> None:
    for claim_id in CLAIMS:
        loaded = water_loaded(folder, claim_id)
        record = record_for(loaded, library)
        assert record.resolution is not None
        asked = record.resolution.model_copy(update={"question": LONG_QUESTION})
        store.record(record.model_copy(update={"resolution": asked}), None, loaded)


def test_claim_ids_stay_on_one_line_at_1280_px(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    from selenium.webdriver.common.by import By

    store = Store(tmp_path / "claims.sqlite")
    _escalated(store, sample_library, tmp_path / "inbox")
    token = store.add_reviewer("ana")
    with review_page(store) as port, headless_chromium() as browser:
        browser.set_window_size(1280, 900)
        url = f"http://127.0.0.1:{port}"
        sign_in(browser, url, token)
        browser.get(f"{url}/")
        assert browser.execute_script("return window.innerWidth") <= 1280
        lines = "return arguments[0].getClientRects().length"
        # The squeeze is real: the question cell of each row wraps over several lines.
        question = browser.find_element(By.CSS_SELECTOR, "#queue tbody td:nth-child(4)")
        assert LONG_QUESTION in question.text
        line = browser.execute_script(
            "return parseFloat(getComputedStyle(arguments[0]).lineHeight)", question
        )
        assert question.rect["height"] > 2 * line
        ids = browser.find_elements(By.CSS_SELECTOR, "#queue .claim-id")
        assert sorted(a.text for a in ids) == sorted(CLAIMS)
        for claim_id in ids:
            # An inline element broken over two lines has a box on each.
            assert browser.execute_script(lines, claim_id) == 1, claim_id.text
            assert claim_id.rect["height"] < 1.5 * line
