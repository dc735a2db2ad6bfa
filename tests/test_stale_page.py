"""The review page marks stale decisions: in the queue, in its list of stale decisions, and on
the escalation's own page, each with the reason; over TestClient and in headless Chromium."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.web import create_app, default_hosts
from claims_crew.run.stale import Project
from claims_crew.store import Store
from tests.support.browser import free_port, headless_chromium, needs_chromium, sign_in
from tests.support.store import record_for, water_loaded

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary) -> Store:
    """The water claim escalated, then its claim file changed on disk."""
    store = Store()
    water = water_loaded(tmp_path / "inbox")
    store.record(record_for(water, sample_library), None, water)
    water.path.write_text(water.path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    return store


def signed_in(app: FastAPI, store: Store, name: str) -> TestClient:
    c = TestClient(app, follow_redirects=False)
    csrf = c.get("/login").context["csrf"]  # type: ignore[attr-defined]
    c.post("/login", data={"token": store.add_reviewer(name), "csrf": csrf})
    return c


def test_the_page_marks_a_stale_decision_with_its_reason(
    store: Store, sample_library: PolicyLibrary
) -> None:
    app = create_app(store, ["testserver"], project=lambda: Project(sample_library, "0" * 64))
    c = signed_in(app, store, "ana")
    queue = c.get("/")
    row = queue.context["listing"]["escalations"][0]  # type: ignore[attr-defined]
    assert row["stale"]["reasons"] == ["claim_file"]
    assert 'class="stale"' in queue.text and "stale: claim_file" in queue.text
    assert 'id="stale-decisions"' in queue.text and "C-1042.json is " in queue.text
    page = c.get("/escalations/C-1042")
    assert page.context["stale"]["reasons"] == ["claim_file"]  # type: ignore[attr-defined]
    assert 'id="stale"' in page.text and "claims-crew revalidate C-1042" in page.text
    # Without a project to compare with, nothing is marked.
    plain = signed_in(create_app(store, ["testserver"]), store, "bo")
    assert 'class="stale"' not in plain.get("/").text


@pytest.mark.browser
@needs_chromium
def test_the_stale_mark_is_visible_in_the_browser(
    store: Store, sample_library: PolicyLibrary
) -> None:
    from selenium.webdriver.common.by import By

    port = free_port()
    app = create_app(
        store,
        default_hosts("127.0.0.1", port),
        project=lambda: Project(sample_library, "0" * 64),
    )
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the review server did not start"
        thread.join(0.05)
    try:
        with headless_chromium() as driver:
            url = f"http://127.0.0.1:{port}"
            sign_in(driver, url, store.add_reviewer("ana"))
            mark = driver.find_element(By.CSS_SELECTOR, "#queue .stale")
            assert mark.is_displayed() and mark.text == "stale: claim_file"
            assert "C-1042.json is" in driver.find_element(By.ID, "stale-decisions").text
            driver.get(f"{url}/escalations/C-1042")
            note = driver.find_element(By.ID, "stale")
            assert note.is_displayed() and "claim_file" in note.text
            assert "claims-crew revalidate C-1042" in note.text
    finally:
        server.should_exit = True
        thread.join(10)
