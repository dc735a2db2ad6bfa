"""`claims-crew policy tree`: the clause tree in the terminal, as JSON, and as a page that
headless Chromium opens offline for every sample policy and every real one in ../shared/policies.

Debian's chromium and chromium-driver are used as installed; nothing is downloaded. A screenshot
of the home policy's page is saved as tests/artifacts/policy-tree.png (docs/policy-tree.png is a
copy of one).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.policy.cache import StoredIndex
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.segment import Clause
from claims_crew.policy.tree_page import render_tree_page
from tests.support.browser import CHROMEDRIVER, CHROMIUM
from tests.support.corrections import POLICY_ID, policy_folder
from tests.support.paths import ROOT, SHARED_POLICIES, absent
from tests.support.real_policies import REAL_PDFS, OpenReal

ARTIFACTS = ROOT / "tests" / "artifacts"
SAMPLES = ("HM-HOME-001", "MR-AUTO-001", "WF-TRAVEL-001")
REAL = tuple(REAL_PDFS)

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)


def _flatten(nodes: list[dict[str, Any]], parent: str | None = None) -> Iterator[tuple[Any, ...]]:
    for node in nodes:
        yield node["id"], parent, node["kind"], node["kind_reason"], tuple(node["pages"])
        yield from _flatten(node["children"], node["id"])


def test_tree_json_nests_every_clause_once_with_its_kind_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "CLAIMS_CREW_POLICIES",
        str(
            policy_folder(
                tmp_path,
                [{"clause": "2.1", "kind": "exclusion", "why": "track days are not covered"}],
            )
        ),
    )
    result = CliRunner().invoke(main, ["policy", "tree", POLICY_ID, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    flat = {cid: rest for cid, *rest in _flatten(payload["tree"])}
    assert list(flat) == ["preamble", "1", "1.1", "1.2", "2", "2.1", "2.2"]
    assert flat["2.1"][0] == "2"  # parent
    assert flat["2.1"][1:3] == ["exclusion", "correction: clause 2.1 (track days are not covered)"]
    assert flat["2.2"][1] == "other" and flat["2.2"][2]  # a reason, though not a correction
    policy = payload["policy"]
    assert (policy["id"], policy["clauses"], policy["corrected"]) == (POLICY_ID, 7, 1)
    assert policy["corrections_sha256"] and len(policy["corrections_sha256"]) == 64
    assert sum(policy["kinds"].values()) == 7


def test_tree_in_the_terminal_shows_ids_kinds_reasons_and_pages(
    home_policy: PolicyDocument,
) -> None:
    result = CliRunner().invoke(main, ["policy", "tree", "HM-HOME-001"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if "4.2(b) " in ln)
    clause = home_policy.get("4.2(b)")
    assert clause is not None
    assert f"4.2(b) {clause.kind} " in line and "p.2" in line
    assert clause.kind_reason and clause.kind_reason[:20] in line
    # Nested: 4.2(b) is drawn deeper than 4.2, which is deeper than 4.
    depth = {
        cid: next(ln for ln in result.output.splitlines() if f"── {cid} " in ln).index(cid)
        for cid in ("4", "4.2", "4.2(b)")
    }
    assert depth["4"] < depth["4.2"] < depth["4.2(b)"]


def test_tree_of_an_unknown_policy_is_a_clear_error() -> None:
    result = CliRunner().invoke(main, ["policy", "tree", "NO-SUCH", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "unknown_policy"


def _hostile_doc(tmp_path: Path) -> PolicyDocument:
    clauses = [
        Clause("preamble", "", "Preamble", "other", (1,), None, "Intro", "default"),
        Clause(
            "<b>1</b>",
            "1",
            "<script>alert(1)</script>",
            "exclusion",
            (1, 2),
            "preamble",
            'Say "hi" & <img src=x onerror=alert(2)>\x1b[31m red \u202etxt.exe',
            "title: <i>x</i>",
        ),
    ]
    stored = StoredIndex(2, clauses, ["preamble", "1"], ["", "1"])
    return PolicyDocument(tmp_path / "x.pdf", "ab" * 32, stored, tmp_path / "x.sqlite")


def test_the_page_escapes_outside_text_and_shows_control_characters(tmp_path: Path) -> None:
    page = render_tree_page(_hostile_doc(tmp_path), "<P&1>")
    assert "<script>" not in page and "<img" not in page and "<b>1</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page and "&quot;hi&quot; &amp;" in page
    assert "\x1b" not in page and "\u202e" not in page
    assert '<span class="ctl">\\x1b</span>[31m' in page
    assert '<span class="ctl">\\u202e</span>' in page
    assert "<title>&lt;P&amp;1&gt;: clause tree</title>" in page
    assert "title: &lt;i&gt;x&lt;/i&gt;" in page


def test_html_prints_only_where_the_page_went(tmp_path: Path) -> None:
    out = tmp_path / "tree.html"
    result = CliRunner().invoke(main, ["policy", "tree", "HM-HOME-001", "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == f"Clause tree written to {out}\n"
    assert "4.2(b)" in out.read_text(encoding="utf-8")


def test_html_to_a_folder_that_does_not_exist_is_a_clear_error(tmp_path: Path) -> None:
    out = tmp_path / "no" / "such" / "tree.html"
    result = CliRunner().invoke(main, ["policy", "tree", "HM-HOME-001", "--html", str(out)])
    assert result.exit_code == 2
    assert "error [cannot_write]" in result.output and not out.exists()


# --- the page in a real browser -----------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    # Offline: the page must draw with nothing fetched.
    driver.set_network_conditions(offline=True, latency=0, throughput=0)
    driver.implicitly_wait(2)
    yield driver
    driver.quit()


def _check_page(browser: Any, page: Path, doc: PolicyDocument) -> None:
    """The page opens offline, lists every clause in the tree and in the text, side by side,
    and a tree entry leads to its clause with the clause's pages and kind."""
    from selenium.webdriver.common.by import By

    browser.get(page.as_uri())
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    counts = browser.execute_script(
        "return [document.querySelectorAll('#tree a').length,"
        " document.querySelectorAll('#clauses article').length]"
    )
    assert counts == [len(doc.clauses), len(doc.clauses)]
    tree = browser.find_element(By.ID, "tree")
    text = browser.find_element(By.ID, "clauses")
    assert tree.rect["x"] + tree.rect["width"] <= text.rect["x"] + 1
    assert abs(tree.rect["y"] - text.rect["y"]) < 2  # side by side, not one under the other
    # Follow the tree entry of a clause half way down: its text comes into view.
    middle = len(doc.clauses) // 2
    target = doc.clauses[middle]
    anchor = browser.find_element(By.CSS_SELECTOR, f'#tree a[href="#c{middle + 1}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", anchor)
    anchor.click()
    article = browser.find_element(By.CSS_SELECTOR, "article:target")
    assert article.get_attribute("data-kind") == target.kind
    top, height = browser.execute_script(
        "return [arguments[0].getBoundingClientRect().top, window.innerHeight]", article
    )
    assert 30 <= top < height  # below the sticky page heading, not under it
    head = article.text.splitlines()
    pages = target.pages
    shown = f"p. {pages[0]}" if len(pages) == 1 else f"pp. {pages[0]}–{pages[-1]}"
    assert head[0] == shown
    assert target.kind in article.text


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("policy_id", SAMPLES)
def test_sample_policy_tree_page_in_chromium(
    policy_id: str, browser: Any, sample_library: Any, tmp_path: Path
) -> None:
    out = tmp_path / f"{policy_id}.html"
    result = CliRunner().invoke(main, ["policy", "tree", policy_id, "--html", str(out), "--json"])
    assert result.exit_code == 0, result.output
    from selenium.webdriver.common.by import By

    doc = sample_library.open(policy_id)
    _check_page(browser, out, doc)
    assert browser.title == f"{policy_id}: clause tree"
    if policy_id == "HM-HOME-001":
        browser.get("about:blank")
        browser.get(out.as_uri())  # fresh, at the top: the header, the tree and page 1
        browser.execute_script("document.getElementById('tree').scrollTop = 0")
        assert browser.find_element(By.ID, "kind-counts").is_displayed()
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "policy-tree.png"
        assert browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 20_000


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("name", REAL)
def test_real_policy_tree_page_in_chromium(
    name: str, browser: Any, real_doc: OpenReal, tmp_path: Path
) -> None:
    if not SHARED_POLICIES.exists():
        pytest.skip(absent(SHARED_POLICIES))
    doc = real_doc(name).doc
    out = tmp_path / "tree.html"
    out.write_text(render_tree_page(doc, None), encoding="utf-8")
    _check_page(browser, out, doc)
    assert browser.title == f"{name}: clause tree"
