"""Decision letters for claims decided through the real crew (only the model scripted): the
letter states the decision, quotes the clauses as the code re-read them, is read back from the
PDF, and leaves an audit entry with its hash that `audit verify` accepts."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.letters import pdf
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.web import create_app
from claims_crew.store import Store
from claims_crew.store.base import default_path
from tests.support.browser import CHROMEDRIVER, CHROMIUM, console_errors
from tests.support.crew import (
    Script,
    water_claim_saying_when,
    water_script,
)
from tests.support.letters import (
    FLOOD_WORDS,
    THEFT_WORDS,
    adjudicated_water,
    agreeing,
    decided,
    letter,
    pdf_text,
)
from tests.support.paths import ROOT

INBOX = ROOT / "claims" / "inbox"


def decide(library: PolicyLibrary, claim_file: str | Path, script: Script | None = None) -> Store:
    """Review the claim (a sample's name, or a path) through the real crew and record its
    decision in the default store."""
    return decided(library, INBOX / claim_file, script or agreeing(str(claim_file)))


@pytest.mark.usefixtures("engine")  # the letter and its entry on SQLite and PostgreSQL
def test_the_flood_claim_gets_a_pdf_quoting_the_exclusion(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    store = decide(sample_library, "C-1045.json")
    out = tmp_path / "C-1045.pdf"
    code, shown, err = letter("C-1045", "--format", "pdf", "--out", str(out))
    assert code == 0, err
    assert "audit entry" in shown.decode()
    text = pdf_text(out.read_bytes())
    assert "Your claim is not covered." in text
    assert "Nothing is payable: the claim is not covered." in text
    # The team's code for a refusal that rests on an exclusion (config/reason_codes.yaml).
    assert "Decision code: D10" in text
    # The exclusion as the code re-read it from the policy PDF, with its id and page.
    assert f"Flood, meaning {FLOOD_WORDS}" in text
    assert "Clause 7.2, Flood (page 4)" in text
    assert "How to appeal" in text
    [issued] = store.letters_issued("C-1045")
    assert issued.format == "pdf"
    assert issued.sha256 == hashlib.sha256(out.read_bytes()).hexdigest()
    entry = store.audit_entries("C-1045")[-1]
    assert (entry.kind, entry.answer) == ("letter", "not_covered")
    assert entry.letter_sha256 == issued.sha256
    assert store.verify_audit().ok


def test_the_theft_claim_gets_a_covered_letter(sample_library: PolicyLibrary) -> None:
    decide(sample_library, "C-1044.yaml")
    code, shown, err = letter("C-1044")
    assert code == 0, err
    text = shown.decode("utf-8")
    assert "**Your claim is covered.**" in text
    assert "covered by clause 4.4(a)" in text
    assert "Decision code: C01" in text
    assert f"> (a) {THEFT_WORDS}" in text
    assert "You claimed £2,600." in text
    # The amount payable as the decision recorded it: 2600 within the 50000 limit, less 250.
    assert "**We will pay £2,350.**" in text
    assert "Your policy's excess (deductible), £250, is taken off, leaving £2,350." in text
    assert "Our claim rules decided your claim, after every clause cited" in text
    # The facts relied on are those the code checked against the claim's own words.
    assert '**Loss type**: theft (your words: "Burglars forced the back door")' in text
    verified = CliRunner().invoke(main, ["audit", "verify"])
    assert verified.exit_code == 0 and verified.stdout.startswith("ok: 2 entries")


def test_an_escalated_claim_gets_no_letter_until_a_person_decides(
    sample_library: PolicyLibrary,
) -> None:
    store = decide(sample_library, "C-1042.json", water_script())
    code, shown, err = letter("C-1042", "--format", "html")
    assert code != 0 and shown == b""
    assert "escalated" in err and "waits for a person's decision" in err
    assert store.letters_issued("C-1042") == []
    assert "Letter preview" not in CliRunner().invoke(main, ["review", "show", "C-1042"]).stdout
    token = store.add_reviewer("ana")
    store.decide(
        "C-1042", "covered", "The plumber dates the leak to 3 November.", "ana", rules=DeskRules()
    )
    # Decided: `review show` and the review page preview the letter; a preview sends nothing.
    shown_in_terminal = (
        CliRunner().invoke(main, ["review", "show", "C-1042"], env={"COLUMNS": "200"}).stdout
    )
    assert "Letter preview" in shown_in_terminal
    assert "A claims reviewer, ana, decided your claim." in shown_in_terminal
    page = TestClient(create_app(store, ["testserver"]))
    csrf = page.get("/login").context["csrf"]  # type: ignore[attr-defined]
    page.post("/login", data={"token": token, "csrf": csrf})
    html = page.get("/escalations/C-1042").text
    assert 'id="letter-preview"' in html and "A claims reviewer, ana, decided" in html
    assert store.letters_issued("C-1042") == []
    code, shown, err = letter("C-1042", "--json")
    assert code == 0, err
    payload = json.loads(shown)
    assert "A claims reviewer, ana, decided your claim." in payload["letter"]
    assert "The plumber dates the leak to 3 November." in payload["letter"]
    # The person's answer was the policy agent's, so its re-read clause is quoted.
    assert "sudden and accidental discharge of water" in payload["letter"]
    assert store.verify_audit().ok


def test_an_adjudicated_claim_names_the_model_and_says_the_rules_checked_it(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    """The water claim saying when the leak began: both readings hold, the adjudicator picks
    the policy agent's, and the code checks its answer."""
    store = decide(sample_library, water_claim_saying_when(tmp_path / "inbox"), adjudicated_water())
    code, shown, err = letter("C-1042")
    assert code == 0, err
    text = shown.decode("utf-8")
    assert "The adjudicator model (scripted-adjudicator) chose between" in text
    # The rules' internal names stay out of a claimant's letter (test_letter_wording.py).
    assert "our claim rules then checked its answer" in text and "'adjudicator'" not in text
    # Only the winning side's clause is quoted: the fraud agent's 7.1 did not decide it.
    assert "sudden and accidental discharge of water" in text
    assert "continuous or repeated seepage" not in text
    assert store.verify_audit().ok


def test_a_claim_never_seen_gets_no_letter() -> None:
    code, _, err = letter("C-9999")
    assert code == 3 and "no claim 'C-9999'" in err


# ---- config check renders the templates ------------------------------------------------------


def _config_with(tmp_path: Path, template: str, line: int, text: str) -> Path:
    """A copy of config/ with `text` put in as line `line` of config/letters/`template`."""
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    path = config / "letters" / template
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(line - 1, text + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return config


def _check(config: Path) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(main, ["config", "check", "--json", "--config-dir", str(config)])
    return result.exit_code, json.loads(result.stdout)["problems"]


def test_config_check_passes_the_shipped_templates() -> None:
    code, problems = _check(ROOT / "config")
    assert code == 0 and [p for p in problems if str(p["file"]).startswith("letters")] == []


@pytest.mark.parametrize(
    ("template", "line", "text"),
    [
        ("letter.md.j2", 12, "Paid on {{ letter.amount.paid_on }}"),
        # In the part the page and the PDF share: charged to that file, not to the page.
        ("body.html.j2", 29, "<p>{{ letter.decided_by.reviewer_email }}</p>"),
        # Only in the branch for a letter with no amount: the samples take it too.
        ("letter.md.j2", 32, "{{ letter.amount.why_not }}"),
        ("body.html.j2", 23, "<p>{{ letter.amount.why_not }}</p>"),
    ],
)
def test_config_check_names_a_bad_field_on_its_line(
    tmp_path: Path, template: str, line: int, text: str
) -> None:
    code, problems = _check(_config_with(tmp_path, template, line, text))
    assert code == 2
    [problem] = [p for p in problems if str(p["file"]).startswith("letters")]
    assert (problem["file"], problem["line"]) == (f"letters/{template}", line)
    assert problem["severity"] == "error"
    field = text.split(".")[-1].split(" ")[0]
    assert field in str(problem["message"])


def test_config_check_names_a_template_syntax_error_on_its_line(tmp_path: Path) -> None:
    code, problems = _check(_config_with(tmp_path, "letter.md.j2", 5, "{% if letter.answer %}"))
    assert code == 2
    [problem] = [p for p in problems if str(p["file"]).startswith("letters")]
    assert problem["file"] == "letters/letter.md.j2" and "syntax" in str(problem["message"])


# ---- the HTML letter in a real browser ---------------------------------------------------------


@pytest.mark.browser
@pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)
def test_the_html_letter_opens_in_chromium_without_console_errors(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    decide(sample_library, "C-1045.json")
    out = tmp_path / "C-1045.html"
    code, _, err = letter("C-1045", "--format", "html", "--out", str(out))
    assert code == 0, err
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1000,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        driver.get(out.as_uri())
        assert driver.title == "Decision on claim C-1045"
        assert (
            "Your claim is not covered."
            in driver.find_element(By.ID, "outcome")
            .find_element(By.XPATH, "following-sibling::p")
            .text
        )
        [quoted] = driver.find_elements(By.TAG_NAME, "blockquote")
        assert f"Flood, meaning {FLOOD_WORDS}" in " ".join(quoted.text.split())
        assert quoted.is_displayed() and quoted.size["height"] > 0
        assert driver.find_element(By.ID, "appeal").is_displayed()
        assert console_errors(driver) == []
        # The check can fail: a script error on the same page is reported.
        driver.execute_script("setTimeout(() => { throw new Error('letter broke'); }, 0)")
        driver.execute_async_script("setTimeout(arguments[0], 50)")
        assert any("letter broke" in m for m in console_errors(driver))
    finally:
        driver.quit()


# ---- the trail says what was sent --------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        ("UPDATE letters SET sha256 = 'f00d'", "the md letter of claim C-1044 says hash 'f00d'"),
        ("UPDATE letters SET format = 'pdf'", "says format 'pdf', its audit entry 2 says 'md'"),
        ("DELETE FROM letters", "audit entry 2 (letter, claim C-1044) has no letter row"),
    ],
)
def test_a_letter_row_edited_under_the_trail_fails_audit_verify(
    sample_library: PolicyLibrary, statement: str, problem: str
) -> None:
    store = decide(sample_library, "C-1044.yaml")
    assert letter("C-1044")[0] == 0
    assert store.verify_audit().ok
    with closing(sqlite3.connect(default_path())) as db, db:
        db.execute(statement)
    verdict = store.verify_audit()
    assert not verdict.ok and verdict.first_bad == 2
    assert problem in str(verdict.problem)


def test_a_letter_entry_is_not_the_decision_revalidation_links_to(
    sample_library: PolicyLibrary,
) -> None:
    store = decide(sample_library, "C-1044.yaml")
    [before] = store.standings(["C-1044"])
    assert letter("C-1044")[0] == 0
    [after] = store.standings(["C-1044"])
    assert after.entry_seq == before.entry_seq == 1
    assert [e.kind for e in store.audit_entries("C-1044")] == ["auto", "letter"]


# ---- characters beyond Latin-1 in the PDF ------------------------------------------------------

WIDE = "Łukasiewicz paid 25 € — “in full” ≥ Ωmega"


@pytest.mark.skipif(pdf.unicode_font() is None, reason="needs fonts-dejavu-core (apt-get)")
def test_the_pdf_keeps_characters_beyond_latin1() -> None:
    text = pdf_text(
        pdf.pdf_letter(f"<h1>Dear {WIDE}</h1><blockquote>{WIDE}</blockquote>", "t").content
    )
    assert text.count(WIDE) == 2
    assert "cannot show" not in text


def test_without_a_unicode_font_the_pdf_says_what_it_could_not_show(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(pdf.FONT_ENV, raising=False)
    monkeypatch.setattr(pdf, "DEJAVU", tmp_path / "no-fonts")
    assert pdf.unicode_font() is None
    text = pdf_text(pdf.pdf_letter(f"<p>Dear {WIDE}</p>", "t").content)
    assert "Dear ?ukasiewicz paid 25 ? ? ?in full? ? ?mega" in text
    assert "cannot show 7 character(s) of this letter; each is printed as '?'" in text
    assert "U+0141 LATIN CAPITAL LETTER L WITH STROKE" in text
    # Latin-1 alone needs no note.
    assert "cannot show" not in pdf_text(pdf.pdf_letter("<p>Dear Zoë Müller</p>", "t").content)


def test_a_letter_that_cannot_render_leaves_no_file_and_no_entry(
    sample_library: PolicyLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = decide(sample_library, "C-1044.yaml")
    config = _config_with(tmp_path, "body.html.j2", 5, "{{ letter.nonsense }}")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    out = tmp_path / "out" / "C-1044.pdf"
    out.parent.mkdir()
    code, _, err = letter("C-1044", "--format", "pdf", "--out", str(out))
    assert code != 0 and "nonsense" in err
    assert list(out.parent.iterdir()) == []
    assert store.letters_issued("C-1044") == []
    assert [e.kind for e in store.audit_entries("C-1044")] == ["auto"]
