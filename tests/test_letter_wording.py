"""What a claimant reads: every sample letter (the ones `config check` renders, and the sample
claims decided through the real crew, only the model scripted) read in Markdown, HTML and PDF
(read back with pypdf) holds no raw timestamp, no word cut short, no reason code, rule name or
field name; dates and sums are in the locale config/letters/letters.yaml names."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from claims_crew.letters.pdf import pdf_letter
from claims_crew.letters.render import FORMATS, Format, render_text
from claims_crew.letters.sample import sample_letters
from claims_crew.letters.wording import LetterStyle, long_date, money, step_words, whole_title
from claims_crew.models import PayableStep
from claims_crew.policy.library import PolicyLibrary
from claims_crew.vocabulary import FACT_FIELDS, REASON_CODES, RULES
from tests.support.crew import water_claim_saying_when
from tests.support.letters import adjudicated_water, agreeing, decided, letter, pdf_text
from tests.support.paths import ROOT

LETTERS = ROOT / "config" / "letters"
ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")


def problems(text: str) -> list[str]:
    """What a claimant should never read in a letter."""
    found = [f"timestamp {m}" for m in ISO.findall(text)]
    found += ["a cut word (…)"] if "…" in text else []
    found += [f"reason code {c}" for c in REASON_CODES if re.search(rf"\b{c}\b", text)]
    found += [f"field name {n}" for n in SNAKE.findall(text)]
    found += [f"fact field {f}" for f in FACT_FIELDS if f in text]
    found += [f"rule name {r}" for r in RULES if f"'{r}'" in text]
    found += ["internal wording"] if "confirmed against its own words" in text else []
    return found


def read_back(format: Format, rendered: str) -> str:
    if format == "pdf":
        return pdf_text(pdf_letter(rendered, "a letter").content)
    return rendered


def test_the_checks_find_what_the_old_letters_said() -> None:
    """The checks can fail: the words the letters used to carry are each caught."""
    old = (
        "Decided on 2026-12-06T00:02:49.348444Z. Clause 1.3, air conditioni… "
        "within the limit of 50000 for 4: 4200 to 4200 (the 'agree' rule) clause_not_found "
        "amount_claimed. No fact from your claim could be confirmed against its own words."
    )
    found = " | ".join(problems(old))
    for what in ("timestamp", "cut word", "reason code", "field name", "rule name", "internal"):
        assert what in found


@pytest.mark.parametrize("format", FORMATS)
def test_every_config_check_sample_letter_reads_as_plain_words(format: Format) -> None:
    for sample in sample_letters():
        text = read_back(format, render_text(LETTERS, format, sample))
        assert problems(text) == [], (sample.answer, text)
        assert "14 September 2025" in " ".join(text.split())


@pytest.mark.slow  # three claims through the real crew, each letter in three formats
def test_the_sample_claims_letters_read_as_plain_words(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    inbox = ROOT / "claims" / "inbox"
    decided(sample_library, inbox / "C-1044.yaml", agreeing("C-1044.yaml"))
    decided(sample_library, inbox / "C-1045.json", agreeing("C-1045.json"))
    decided(sample_library, water_claim_saying_when(tmp_path / "inbox"), adjudicated_water())
    for claim in ("C-1044", "C-1045", "C-1042"):
        for format in FORMATS:
            out = tmp_path / f"{claim}.{format}"
            code, _, err = letter(claim, "--format", format, "--out", str(out))
            assert code == 0, err
            raw = out.read_bytes()
            text = pdf_text(raw) if format == "pdf" else raw.decode("utf-8")
            assert problems(text) == [], (claim, format, text)
    covered = (tmp_path / "C-1044.md").read_text(encoding="utf-8")
    # The theft claim: 2600 claimed within the contents limit, less the policy's 250 excess.
    assert "You claimed £2,600." in covered
    assert "**We will pay £2,350.**" in covered
    assert "your claim of £2,600 is within it." in covered
    assert "Your policy's excess (deductible), £250, is taken off, leaving £2,350." in covered
    assert re.search(r"Decided on \d{1,2} [A-Z][a-z]+ \d{4};", covered)


def test_dates_and_sums_follow_the_locale_the_team_sets(tmp_path: Path) -> None:
    german = LetterStyle(locale="de_DE", time_zone="Europe/Berlin")
    assert long_date("2026-12-06", german) == "6. Dezember 2026"
    # Just after midnight in UTC is still the 5th in New York.
    assert long_date("2026-12-06T00:02:49.348444Z", LetterStyle(time_zone="America/New_York")) == (
        "5 December 2026"
    )
    assert money(Decimal("50000"), "EUR", german) == "50.000\xa0€"
    assert money(Decimal("4200.5"), "GBP", LetterStyle()) == "£4,200.50"
    folder = tmp_path / "letters"
    for template in LETTERS.iterdir():
        (folder / template.name).parent.mkdir(exist_ok=True)
        (folder / template.name).write_bytes(template.read_bytes())
    (folder / "letters.yaml").write_text("locale: de_DE\n", encoding="utf-8")
    from claims_crew.letters.wording import load_style

    [first, *_] = sample_letters(load_style(folder))
    assert "14. September 2025" in render_text(folder, "md", first)
    (folder / "letters.yaml").write_text("locale: xx_YY\n", encoding="utf-8")
    from claims_crew.errors import ConfigError

    with pytest.raises(ConfigError, match=r"letters\.yaml:1.*xx_YY"):
        load_style(folder)


def test_a_capped_step_and_a_shortened_title_in_words() -> None:
    step = PayableStep(
        kind="sub_limit",
        clause_id="4.2",
        before=Decimal("4200"),
        after=Decimal("3000"),
        note="capped at the sub-limit of 3000 for 4.2",
    )
    assert step_words(step, Decimal("4200"), "GBP", LetterStyle()) == (
        "Your policy's sub-limit for this section is £3,000; your claim of £4,200 is more than "
        "that, so we pay up to £3,000."
    )
    assert whole_title("Theft") == "Theft"
    assert whole_title("“Plumbing system” means … air conditioni…") == ""
