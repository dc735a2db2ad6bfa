"""Where a letter is written and what its PDF can show: `letter --out` never writes through a
link nor over a file without --force; a PDF letter names each character its font cannot show,
in the letter and to the caller; every amount is plain digits, never exponent notation."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from pypdf import PdfReader

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.letters import pdf
from claims_crew.letters.content import plain_amount
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.context import build_context
from claims_crew.run.crew_review import review_claim
from claims_crew.store import Store
from tests.support.crew import Script, intake_facts
from tests.support.paths import ROOT

THEFT = ROOT / "claims" / "inbox" / "C-1044.yaml"
THEFT_WORDS = "theft or attempted theft involving forcible and violent entry"
VICTIM = "a file nobody asked the letter to touch\n"


def covered(confidence: float) -> dict[str, object]:
    return {
        "answer": "covered",
        "confidence": confidence,
        "evidence": [{"clause_id": "4.4(a)", "quote": THEFT_WORDS}],
        "facts_relied_on": ["cause"],
        "rationale": "Clause 4.4(a).",
    }


def decided_theft(
    library: PolicyLibrary, folder: Path, outcome: str = "ACCEPTED", **changes: Any
) -> Store:
    """C-1044 (fields changed as given) reviewed through the real crew, both agents finding it
    covered: decided by the rules, or escalated by a gate (`outcome`)."""
    data = {**yaml.safe_load(THEFT.read_text(encoding="utf-8")), **changes}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "C-1044.json"
    path.write_text(json.dumps(data, default=str, ensure_ascii=False), encoding="utf-8")
    loaded = load_claim(path)
    script = Script(
        intake=[final(intake_facts("C-1044.yaml"))],
        policy=[lookup("HM-HOME-001", "4.4(a)"), final(covered(0.95))],
        fraud=[lookup("HM-HOME-001", "4.4(a)"), final(covered(0.9))],
    )
    store = Store()
    settings = build_context(
        library=library, llm_for=script, store=store, config_dir=ROOT / "config"
    )
    record = review_claim(loaded, settings)
    assert record.resolution is not None and record.resolution.outcome == outcome, record
    store.record(record, None, loaded)
    return store


def letter(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["letter", *args])
    return result.exit_code, result.stdout, result.stderr


def pdf_text(content: bytes) -> str:
    return " ".join(
        " ".join((page.extract_text() or "").split())
        for page in PdfReader(io.BytesIO(content)).pages
    )


@pytest.mark.usefixtures("engine")
def test_letter_out_never_writes_through_a_partial_file_link(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    store = decided_theft(sample_library, tmp_path / "inbox")
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM, encoding="utf-8")
    out = tmp_path / "out" / "C-1044.md"
    out.parent.mkdir()
    (out.parent / ".C-1044.md.partial").symlink_to(victim)

    code, _, err = letter("C-1044", "--out", str(out))

    assert code == 2, err
    assert "already exists" in err and ".C-1044.md.partial" in err
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert not out.exists()
    assert store.letters_issued("C-1044") == []  # refused before anything was recorded


@pytest.mark.usefixtures("engine")
def test_letter_out_keeps_an_existing_file_unless_forced(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    store = decided_theft(sample_library, tmp_path / "inbox")
    out = tmp_path / "C-1044.md"
    out.write_text(VICTIM, encoding="utf-8")

    code, _, err = letter("C-1044", "--out", str(out))
    assert code == 2 and "already exists" in err and "--force" in err
    assert out.read_text(encoding="utf-8") == VICTIM
    assert store.letters_issued("C-1044") == []

    code, _, err = letter("C-1044", "--out", str(out), "--force")
    assert code == 0, err
    assert "Your claim is covered." in out.read_text(encoding="utf-8")
    assert [i.format for i in store.letters_issued("C-1044")] == ["md"]
    assert list(tmp_path.glob(".*.partial")) == []


def test_a_forced_letter_replaces_a_link_at_out_not_what_it_points_to(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    decided_theft(sample_library, tmp_path / "inbox")
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM, encoding="utf-8")
    out = tmp_path / "C-1044.md"
    out.symlink_to(victim)

    code, _, err = letter("C-1044", "--out", str(out))
    assert code == 2 and "already exists" in err

    code, _, err = letter("C-1044", "--out", str(out), "--force")
    assert code == 0, err
    assert not out.is_symlink() and "Your claim is covered." in out.read_text(encoding="utf-8")
    assert victim.read_text(encoding="utf-8") == VICTIM


# Chinese, Japanese, an emoji DejaVu Sans lacks, and Hebrew (right to left).
NAME = "王小明 さくら 🦄 שלום"


@pytest.mark.skipif(pdf.unicode_font() is None, reason="needs fonts-dejavu-core (apt-get)")
def test_a_pdf_letter_names_each_character_it_cannot_show(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    decided_theft(sample_library, tmp_path / "inbox", claimant=NAME)
    out = tmp_path / "C-1044.pdf"

    code, _, err = letter("C-1044", "--format", "pdf", "--out", str(out))

    assert code == 0, err
    text = pdf_text(out.read_bytes())
    assert "cannot show 7 character(s) of this letter; each is printed as '?'" in text
    for named in (
        "U+738B CJK UNIFIED IDEOGRAPH-738B",
        "U+3055 HIRAGANA LETTER SA",
        "U+1F984 UNICORN FACE",
    ):
        assert named in text and named in err  # in the letter, and told to the caller
    assert "Right-to-left text in this letter is printed here from left to right" in text
    assert "Right-to-left text" in err
    # A character the font has is printed, not listed: the Hebrew letters are all there.
    assert "U+05E9" not in text and all(c in text for c in "שלום")

    code, shown, err = letter("C-1044", "--format", "pdf", "--out", str(out), "--force", "--json")
    assert code == 0, err
    assert any("U+1F984 UNICORN FACE" in line for line in json.loads(shown)["unshown"])


def test_a_pdf_letter_that_can_show_everything_says_nothing_more(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    decided_theft(sample_library, tmp_path / "inbox", claimant="Zoë Müller")
    out = tmp_path / "C-1044.pdf"
    code, _, err = letter("C-1044", "--format", "pdf", "--out", str(out))
    assert code == 0, err
    text = pdf_text(out.read_bytes())
    assert "Zoë Müller" in text
    assert "cannot show" not in text and "Right-to-left" not in text and "note:" not in err


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("2600", "2600"),
        ("2.6E+3", "2600"),
        ("1E+2", "100"),
        ("2350.50", "2350.50"),
        ("0.125", "0.13"),
        ("1E-7", "0.00"),
        ("999999999999999.99", "999999999999999.99"),
    ],
)
def test_amounts_are_plain_digits(value: str, shown: str) -> None:
    assert plain_amount(Decimal(value)) == shown


@pytest.mark.parametrize("value", ["1E+999999", "1E+15", "NaN", "Infinity", "-Infinity"])
def test_an_amount_beyond_what_a_letter_states_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="letter"):
        plain_amount(Decimal(value))


@pytest.mark.parametrize("fmt", ["md", "pdf"])
def test_a_claimed_amount_in_exponent_form_is_printed_in_plain_digits(
    sample_library: PolicyLibrary, tmp_path: Path, fmt: str
) -> None:
    decided_theft(sample_library, tmp_path / "inbox", amount="2.6E+3")
    out = tmp_path / f"C-1044.{fmt}"
    code, _, err = letter("C-1044", "--format", fmt, "--out", str(out))
    assert code == 0, err
    text = pdf_text(out.read_bytes()) if fmt == "pdf" else out.read_text(encoding="utf-8")
    assert "You claimed £2,600." in text
    assert "£2,350" in text and "E+" not in text


def test_a_claim_whose_amount_is_beyond_any_letter_gets_none_and_says_why(
    sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    # The amount gate sends it to a person, who decides it covered.
    store = decided_theft(sample_library, tmp_path / "inbox", "ESCALATED", amount="1E+999999")
    store.add_reviewer("ana")
    store.decide("C-1044", "covered", "Forced entry, as 4.4(a) says.", "ana", rules=DeskRules())
    out = tmp_path / "C-1044.pdf"
    code, _, err = letter("C-1044", "--format", "pdf", "--out", str(out))
    assert code == 2
    assert "1,000,000 digits" in err and "a person must look" in err
    assert not out.exists() and store.letters_issued("C-1044") == []
