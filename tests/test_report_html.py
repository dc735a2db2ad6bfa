"""`claims-crew report --html`: one self-contained page, opened in headless Chromium offline.

Debian's chromium and chromium-driver are used as installed; nothing is downloaded. The browser
runs with its network emulated offline, and the page must still draw every chart and table. A
screenshot is saved as tests/artifacts/report.png (docs/report.png is a copy of one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.library import PolicyLibrary
from claims_crew.report import build_report
from claims_crew.report.html import render
from tests.support.browser import CHROMEDRIVER, CHROMIUM
from tests.support.paths import ROOT
from tests.support.report import hostile_row, known_store

ARTIFACTS = ROOT / "tests" / "artifacts"
REVIEW_URL = "http://review.example:8000"

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)


def test_page_is_self_contained_and_escaped() -> None:
    page = render(build_report([hostile_row()]), REVIEW_URL)
    assert "<script" not in page and "<b>1</b>" not in page and "<start>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # Nothing to fetch: no external sources, imports, fonts or url() in the CSS.
    assert not re.search(r"\b(src|srcset)=|@import|url\(|<link|<iframe", page)
    assert re.findall(r'href="([^"]+)"', page) == [f"{REVIEW_URL}/escalations/C-1"]
    assert "default-src 'none'" in page


def test_html_option_writes_the_page(sample_library: PolicyLibrary, tmp_path: Path) -> None:
    known_store(sample_library, tmp_path / "claims")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--html", str(out), "--review-url", REVIEW_URL + "/", "--json"]
    )
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert page.count("<svg") == 4
    assert f'href="{REVIEW_URL}/escalations/R09"' in page
    assert not list(tmp_path.glob(".report.html*"))  # written under a temporary name, renamed


def test_html_option_prints_only_where_the_page_went(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    known_store(sample_library, tmp_path / "claims")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", "--html", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert result.stdout == f"HTML report written to {out}\n"
    assert "Which fields drive disagreement" in out.read_text(encoding="utf-8")


@pytest.fixture
def browser() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    yield driver
    driver.quit()


@pytest.mark.browser
@needs_chromium
def test_report_opens_offline_in_chromium(
    sample_library: PolicyLibrary, tmp_path: Path, browser: object
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver

    assert isinstance(browser, WebDriver)
    known_store(sample_library, tmp_path / "claims")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", "--html", str(out), "--review-url", REVIEW_URL])
    assert result.exit_code == 0, result.output

    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    browser.get(out.as_uri())
    assert browser.title == "claims-crew report"
    # Nothing was requested beyond the page itself.
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0

    charts = browser.find_elements(By.TAG_NAME, "svg")
    assert len(charts) == 4
    for chart in charts:
        assert chart.size["width"] > 300 and chart.size["height"] > 100
    # The outcome chart's ESCALATED bar is 8/13 of the track it sits on.
    bars = browser.execute_script(
        "const r = [...document.querySelectorAll('svg')[0].querySelectorAll('rect')];"
        "return r.map(e => [e.getAttribute('width'), e.textContent]);"
    )
    escalated = [float(w) for w, t in bars if t.startswith("ESCALATED:")]
    track = float(bars[0][0])
    assert escalated == [pytest.approx(track * 8 / 13, abs=0.1)]

    cards = browser.find_elements(By.CSS_SELECTOR, ".card")
    assert "45.5%" in cards[1].text and "5 of 11" in cards[1].text  # material conflict
    tables = browser.find_elements(By.TAG_NAME, "table")
    field_table = next(t for t in tables if "null in conflicts" in t.text)
    first_field = field_table.find_elements(By.CSS_SELECTOR, "tbody tr")[0]
    assert first_field.text.startswith("damage_start_date 28.6% (2/7)")
    link = browser.find_element(By.LINK_TEXT, "R09")
    assert link.get_attribute("href") == f"{REVIEW_URL}/escalations/R09"

    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1200, min(int(height) + 40, 6000))
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 20_000
