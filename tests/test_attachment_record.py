"""The text of record is what every later step sees: once a claim file is ingested, its
attachments are not read again, and a file changed since is reported, not silently re-read."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from click.testing import CliRunner
from pypdf import PdfReader

from claims_crew.cli import main
from claims_crew.run.ingest import ingest
from claims_crew.store import Store
from tests.support.attachments import SPLIT_CLAIM, SPLIT_REPORT, THEFT_CLAIM


def _inbox(tmp_path: Path) -> Path:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(SPLIT_CLAIM, inbox)
    shutil.copy(SPLIT_CLAIM.parent / SPLIT_REPORT, inbox)
    return inbox


def test_a_changed_attachment_is_reported_and_its_text_of_record_kept(tmp_path: Path) -> None:
    inbox = _inbox(tmp_path)
    store = Store()
    [first] = ingest([inbox / SPLIT_CLAIM.name], store)
    assert first.state == "queued" and first.notes == []
    kept = store.loaded("C-1049", first.sha256)
    assert kept is not None
    original = kept.documents[SPLIT_REPORT]
    # The original file is kept by its hash, for the review page.
    assert original.kept_at is not None
    assert Path(original.kept_at).read_bytes() == (SPLIT_CLAIM.parent / SPLIT_REPORT).read_bytes()

    # The report is replaced by another PDF (the claim file itself is unchanged).
    shutil.copy(SPLIT_CLAIM.parent / "C-1050-police-report.pdf", inbox / SPLIT_REPORT)
    result = CliRunner().invoke(main, ["ingest", str(inbox), "--json"])
    assert result.exit_code == 0, result.output
    [again] = json.loads(result.output)["files"]
    assert again["state"] == "already_queued"
    [note] = again["attachments"]
    assert (note["name"], note["code"]) == (SPLIT_REPORT, "changed")
    table = CliRunner().invoke(main, ["ingest", str(inbox)], env={"COLUMNS": "300"})
    assert f"attachment {SPLIT_REPORT}: changed" in table.output
    # Every later step reads the text intake saw, not the new file's.
    now = store.loaded("C-1049", first.sha256)
    assert now is not None and now.documents[SPLIT_REPORT] == original
    assert (
        original.pages[1].text
        == PdfReader(SPLIT_CLAIM.parent / SPLIT_REPORT).pages[1].extract_text()
    )


def test_a_refused_attachment_has_its_code_in_ingests_json(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(THEFT_CLAIM, inbox)
    with zipfile.ZipFile(inbox / "C-1050-police-report.pdf", "w") as archive:
        archive.writestr("report.txt", "not the police report")
    result = CliRunner().invoke(main, ["ingest", str(inbox), "--json"])
    assert result.exit_code == 1
    [refused] = json.loads(result.output)["files"]
    assert (refused["state"], refused["code"]) == (None, "unsupported_type")
    assert "not a Word (.docx) or Excel (.xlsx) file" in refused["error"]
