"""The page a quote comes from, beside the quote, in a real headless Chromium: C-1049's start
date is quoted from page 2 of its plumber's PDF, and the escalation page shows that page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.attachments import SPLIT_REPORT
from tests.support.browser import headless_chromium, needs_chromium, sign_in
from tests.support.page_images import split_escalated
from tests.support.paths import ROOT
from tests.support.web import review_page

ARTIFACTS = ROOT / "tests" / "artifacts"

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture
def served(tmp_path: Path, sample_library: PolicyLibrary) -> Iterator[tuple[str, str]]:
    store = Store(tmp_path / "claims.sqlite")
    split_escalated(store, sample_library, tmp_path)
    token = store.add_reviewer("ana")
    with review_page(store) as port:
        yield f"http://127.0.0.1:{port}", token


def test_the_quoted_page_loads_beside_the_quote(served: tuple[str, str]) -> None:
    from selenium.webdriver.common.by import By

    url, token = served
    with headless_chromium() as browser:
        sign_in(browser, url, token)
        browser.get(f"{url}/escalations/C-1049")
        fact = browser.find_element(By.ID, "fact-damage_start_date")
        assert "The damage started on 16 January 2026" in fact.text
        figure = fact.find_element(By.ID, "page-damage_start_date")
        assert f"{SPLIT_REPORT}, page 2" in figure.text
        image = figure.find_element(By.TAG_NAME, "img")
        browser.execute_script("arguments[0].scrollIntoView()", image)  # it loads lazily
        loaded = browser.execute_async_script(
            "const [img, done] = arguments;"
            "if (img.complete) { done(img.naturalWidth); return; }"
            "img.addEventListener('load', () => done(img.naturalWidth));"
            "img.addEventListener('error', () => done(-1));",
            image,
        )
        assert loaded > 0
        assert browser.execute_script("return arguments[0].naturalHeight", image) > loaded
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "escalation-page-image.png"))
        # Chromium asks for /favicon.ico by itself, which the page does not serve; nothing else.
        console = browser.get_log("browser")
        assert [e for e in console if "/favicon.ico " not in e["message"]] == []
