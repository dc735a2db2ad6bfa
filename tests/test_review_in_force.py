"""The review page and `review show` on a clause an endorsement changed: the clause in force
beside the form's original, with the endorsement that changed it, all of it escaped."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.browser import headless_chromium, needs_chromium, sign_in
from tests.support.in_force import AMENDED_4_2_B, FORM_4_2_B, HM_E_07, amended, issued_by_hand
from tests.support.paths import SAMPLE_POLICIES
from tests.support.store import record_for, water_loaded
from tests.support.web import review_page, signed_in

SCRIPT = "<script>alert('endorsed')</script>"
ESCAPED = "&lt;script&gt;alert(&#39;endorsed&#39;)&lt;/script&gt;"
FORM_WORDS = "air conditioning system or a household appliance;"


@pytest.fixture
def store(tmp_path: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """C-1042 on HM-25-00417, escalated as the design's example, its 4.2(b) as HM-E-07
    replaced it; the form's original carries a script, as a hostile PDF could."""
    library = issued_by_hand(
        PolicyLibrary(root=SAMPLE_POLICIES, cache_dir=session_cache), monkeypatch
    )

    def in_force(self: PolicyLibrary, policy_id: str, number: str, on: date) -> PolicyDocument:
        original = replace(HM_E_07, original=f"{FORM_4_2_B} {SCRIPT}")
        return amended(self.open(policy_id), {"4.2(b)": AMENDED_4_2_B}, {"4.2(b)": original})

    monkeypatch.setattr(PolicyLibrary, "in_force", in_force)
    store = Store()
    water = water_loaded(tmp_path / "inbox", policy_number="HM-25-00417")
    store.record(record_for(water, library), None, water)
    return store


def test_the_page_shows_the_amended_clause_beside_the_forms_original(store: Store) -> None:
    html = signed_in(store).get("/escalations/C-1042").text
    assert "policy HM-HOME-001 (number HM-25-00417) · claimant" in html
    assert "In force as amended by endorsement HM-E-07 (page 1)" in html
    in_force, original = html.split("<h4>The form's original</h4>")
    assert "10 years old at the time of the loss" in in_force.split("<h4>In force</h4>")[1]
    assert FORM_WORDS in original.split("</pre>")[0]
    assert SCRIPT not in html and ESCAPED in html


@pytest.mark.usefixtures("store")
def test_review_show_names_the_endorsement_and_the_original() -> None:
    result = CliRunner().invoke(main, ["review", "show", "C-1042"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "policy HM-HOME-001 (number HM-25-00417) loss 2025-11-03" in text
    assert "in force as amended by endorsement HM-E-07 (page 1):" in text
    assert "the form's original: (b) sudden and accidental discharge" in text


@pytest.mark.browser
@needs_chromium
def test_in_chromium_the_two_wordings_stand_side_by_side(store: Store) -> None:
    from selenium.webdriver.common.by import By

    token = store.add_reviewer("ana")
    with review_page(store) as port, headless_chromium() as browser:
        url = f"http://127.0.0.1:{port}"
        sign_in(browser, url, token)
        browser.get(f"{url}/escalations/C-1042")
        [pair] = browser.find_elements(By.CSS_SELECTOR, ".side-by-side")
        in_force, original = pair.find_elements(By.CSS_SELECTOR, ".clause-text")
        assert "10 years old" in in_force.text and FORM_WORDS in original.text
        assert SCRIPT in original.text  # shown as text, never run
        assert in_force.rect["y"] == original.rect["y"]
        assert in_force.rect["x"] + in_force.rect["width"] <= original.rect["x"]
