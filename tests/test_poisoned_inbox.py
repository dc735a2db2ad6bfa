"""One bad file of every kind beside the sample claims: the run reviews every good claim, lists
each bad file with its reason, and exits 1. Then the same inbox with the bad files removed.
Bad attachments are among them (an encrypted PDF, a zip that is no Office file, a zip bomb
dressed as .docx and one as .xlsx), and the run has no OCR engine: the scanned police report and the
photographed estimates are listed as needs_ocr and their claims reviewed all the same."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfWriter

from claims_crew.claim_files import MAX_CLAIM_BYTES
from claims_crew.cli import main
from claims_crew.documents.limits import MAX_FORM_FIELDS
from claims_crew.store import Store
from tests.support.crew import Script, script_any_claim_run, table_row
from tests.support.forms import text_fields_pdf
from tests.support.office import word_note, workbook, zip_bomb
from tests.support.paths import ROOT

SAMPLES = ROOT / "claims" / "inbox"
GOOD = [
    "C-1043",
    "C-1044",
    "C-1045",
    "C-1046",
    "C-1047",
    "C-1048",
    "C-1049",
    "C-1050",
    "C-1051",
    "C-1052",
    "C-1053",
    "C-1054",
    "C-2001",
    "C-2002",
    "C-2003",
    "C-2004",
    "C-2005",
    "C-3001",
]


def _poison(inbox: Path, outside: Path) -> dict[str, str]:
    """One file of each kind; returns file name → the reason code the run must give."""
    water = json.loads((SAMPLES / "C-1042.json").read_text(encoding="utf-8"))
    (inbox / "X-deep.json").write_text("[" * 1000 + "]" * 1000)
    (inbox / "X-deep.yaml").write_text("[" * 500 + "]" * 500)
    big = {**water, "claim_id": "X-big", "description": "flood " * (MAX_CLAIM_BYTES // 5)}
    (inbox / "X-big.json").write_text(json.dumps(big))
    os.mkfifo(inbox / "X-fifo.json")
    outside.mkdir()
    secret = outside / "X-secret.json"
    secret.write_text(json.dumps({**water, "claim_id": "X-secret"}))
    (inbox / "X-link.json").symlink_to(secret)
    (inbox / "C-1042-corrected.json").write_text(json.dumps({**water, "amount": 4300}))
    (inbox / "X-markup.yaml").write_text('claim_id: "[/x] [bold]unterminated\n')
    locked = PdfWriter(clone_from=SAMPLES / "C-1049-plumber.pdf")
    locked.encrypt(user_password="secret", owner_password="owner")
    locked.write(inbox / "X-locked.pdf")
    with zipfile.ZipFile(inbox / "X-photos.zip", "w") as archive:
        archive.writestr("front.jpg", b"\xff\xd8\xff" + b"\x00" * 64)
    (inbox / "X-bomb.docx").write_bytes(zip_bomb(word_note()))
    (inbox / "X-bomb.xlsx").write_bytes(zip_bomb(workbook({"Estimate": [["Total", 1710]]})))
    # A form with a field more than the cap: refused before any value is read.
    fields = {f"Field{n}": "" for n in range(MAX_FORM_FIELDS + 1)}
    (inbox / "X-form.pdf").write_bytes(text_fields_pdf(fields))
    for claim_id, attachment in (
        ("X-locked", "X-locked.pdf"),
        ("X-zip", "X-photos.zip"),
        ("X-docx-bomb", "X-bomb.docx"),
        ("X-xlsx-bomb", "X-bomb.xlsx"),
        ("X-form", "X-form.pdf"),
    ):
        fields = {**water, "claim_id": claim_id, "attachments": [attachment]}
        (inbox / f"{claim_id}.json").write_text(json.dumps(fields))
    return {
        "X-locked.json": "encrypted",
        "X-zip.json": "unsupported_type",
        "X-docx-bomb.json": "too_large",
        "X-xlsx-bomb.json": "too_large",
        "X-form.json": "too_large",
        "X-deep.json": "too_deep",
        "X-deep.yaml": "too_deep",
        "X-big.json": "too_large",
        "X-fifo.json": "not_a_file",
        "X-link.json": "outside_inbox",
        "C-1042-corrected.json": "duplicate_id",
        "C-1042.json": "duplicate_id",
        "X-markup.yaml": "malformed",
    }


@pytest.fixture
def run_with_script(monkeypatch: pytest.MonkeyPatch) -> Script:
    return script_any_claim_run(monkeypatch, ocr=False)


def test_a_poisoned_batch_reviews_every_good_claim_and_lists_the_bad_files(
    tmp_path: Path, run_with_script: Script
) -> None:
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLES, inbox)
    bad = _poison(inbox, tmp_path / "outside")

    result = CliRunner().invoke(
        main,
        ["run", "--inbox", str(inbox), "--concurrency", "2"],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 1, result.output
    out = result.output
    store = Store()
    for claim_id in GOOD:
        record = store.claim_record(claim_id)
        assert record is not None and record.status == "reviewed", claim_id
    # Neither duplicate is decided, nothing outside the inbox or over the cap reached a model.
    for claim_id in ("C-1042", "X-secret", "X-big"):
        assert store.claim_record(claim_id) is None, claim_id
    assert not any("flood flood" in str(call) for call in run_with_script("intake").calls)
    for name, code in bad.items():
        assert f"bad claim file ({code})" in table_row(out, name), name
    assert "C-1042.json" in table_row(out, "C-1042-corrected.json")
    assert "C-1042-corrected.json" in table_row(out, "C-1042.json")
    assert "[/x] [bold]unterminated" in out  # the YAML error, quoted as it is
    assert f"{len(bad)} claim(s) failed" in out
    assert "attachment C-1050-police-report.pdf: needs_ocr (page 1 has no text layer" in out
    assert f"{len(GOOD)} claim(s) escalated in this run" in out

    # Once the bad files are gone and one of the duplicates removed, the rest is reviewed.
    for name in bad:
        if name != "C-1042.json":
            (inbox / name).unlink()
    again = CliRunner().invoke(main, ["run", "--inbox", str(inbox)], env={"COLUMNS": "400"})
    assert again.exit_code == 0, again.output
    assert "1 to review" in again.output
    record = store.claim_record("C-1042")
    assert record is not None and record.status == "reviewed"
