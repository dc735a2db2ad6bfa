"""Headless Chromium as Debian installs it, and a free local port to serve a page on."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# For a test that drives the browser: skipped, saying why, where it is not installed.
needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver; .ci/run installs them)",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def headless_chromium() -> Iterator[WebDriver]:
    """Debian's Chromium through its chromedriver, headless, 1500 by 1400, keeping the page's
    console messages (`console_errors`); it quits when the block ends."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,1400"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.implicitly_wait(5)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: object) -> list[str]:
    """What the page wrote to the browser console at SEVERE level (errors, failed loads);
    the driver must be started with `goog:loggingPrefs` {"browser": "ALL"}."""
    entries: list[dict[str, str]] = driver.get_log("browser")  # type: ignore[attr-defined]
    return [e["message"] for e in entries if e.get("level") == "SEVERE"]


def sign_in(driver: WebDriver, url: str, token: str) -> None:
    """Sign in on the review page at `url` and wait until the page after it shows who is signed
    in: going on at once races the form's POST, and a page asked for before its cookie is set
    lands on the sign-in form instead."""
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/login")
    driver.find_element(By.ID, "token").send_keys(token)
    follow(driver, driver.find_element(By.ID, "sign-in"))
    driver.find_element(By.ID, "reviewer-name")  # waits, as the driver's implicit wait allows


def follow(driver: WebDriver, element: WebElement, seconds: float = 300) -> None:
    """Click `element`, a link or a submit button, and wait until the next page has loaded.
    The next page can share ids with this one (a state, a heading, a queue): an element found
    before the browser has moved on is the old page's, and it goes stale as it is read.

    The old page is marked in its own window object, which the next page does not have. Asking
    an element of the old page whether it is stale instead can fail mid-navigation with an
    error of Chromium's own ("Node with given id does not belong to the document"), so each
    question here is asked afresh of whatever page is shown, until one answers."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("window.claimsCrewPageBefore = true;")
    element.click()
    WebDriverWait(driver, seconds, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return !window.claimsCrewPageBefore && document.readyState === 'complete';"
        )
    )


def wait_for(driver: WebDriver, element_id: str, seconds: float = 300) -> WebElement:
    """The element `element_id` once the page shows it. A page that reads a policy (the decide
    form's clauses, the confirmation step) can take longer than the implicit wait on a busy
    machine: this waits on the page's condition, however long it takes, up to `seconds`."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    found: list[WebElement] = WebDriverWait(driver, seconds).until(
        lambda d: d.find_elements(By.ID, element_id)
    )
    return found[0]
