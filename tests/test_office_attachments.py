"""Word files and spreadsheets as claim attachments: read in their own child process, a Word
file as one page of paragraphs and tables, a workbook a sheet a page; each way one is refused
(a zip bomb, a lying directory, too many parts, sheets, rows or cells, a zip that is not
Office, a reader past its time) with the code a person can act on."""

from __future__ import annotations

import io
import os
import random
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from claims_crew.documents import child_process
from claims_crew.documents.forked_children import ForkedChild, new_fork_servers
from claims_crew.documents.limits import (
    MAX_PAGES,
    MAX_ZIP_ENTRIES,
    MAX_ZIP_ENTRY_BYTES,
    AttachmentError,
    ClaimBudget,
    RenderLimits,
)
from claims_crew.documents.office import read as office
from claims_crew.documents.read import read_attachment
from claims_crew.documents.record import AttachmentRecord
from tests.support.attachments import INBOX, STATEMENT
from tests.support.office import (
    NOTE_PARAGRAPH,
    cached_value,
    compound_file,
    declaring,
    with_parts,
    word_note,
    workbook,
    zip_bomb,
)

pytestmark = pytest.mark.slow  # each file starts a reader child

ESTIMATE_ROWS: list[list[object]] = [
    ["Part", "Cost"],
    ["Rear bumper cover", 640],
    ["Tailgate, repair", 910.5],
    ["Total", "=SUM(B2:B3)"],
]


def _read(name: str, data: bytes) -> AttachmentRecord:
    return read_attachment(name, data, ClaimBudget())


def _refused(name: str, data: bytes) -> AttachmentError:
    with pytest.raises(AttachmentError) as caught:
        _read(name, data)
    assert name in str(caught.value)
    return caught.value


Refuse = Callable[[str, bytes], AttachmentError]


@pytest.fixture
def refused_unopened(monkeypatch: pytest.MonkeyPatch) -> Refuse:
    """The refusal of a file, failing the test if any part is inflated in this process or a
    reader child is started while it is read."""

    def inflate(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a part was opened")

    def start(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a reader child was started")

    def refuse(name: str, data: bytes) -> AttachmentError:
        with monkeypatch.context() as patched:
            patched.setattr(zipfile.ZipFile, "open", inflate)
            patched.setattr(office, "run_child", start)
            return _refused(name, data)

    return refuse


def test_a_word_note_gives_its_paragraphs_and_its_table_in_order() -> None:
    record = _read("note.docx", word_note())
    assert record.kind == "docx" and [p.number for p in record.pages] == [1]
    assert record.pages[0].text.splitlines() == [
        "Statement of the insured",
        NOTE_PARAGRAPH,
        "Item | Cost",
        "Door, repair and refinish | 1,150.00",
        "Total | 1,710.00",
        "Signed, Marcus Bell.",
    ]
    assert record.pages[0].source == "text"


def test_the_sample_statement_is_read_with_its_table() -> None:
    record = _read(STATEMENT, (INBOX / STATEMENT).read_bytes())
    text = record.pages[0].text
    assert "a white van reversed out of a bay into the front passenger door of my car" in text
    assert "Total | 1,710.00" in text.splitlines()


def test_a_workbook_gives_each_sheet_as_a_page_with_a_formulas_cached_value() -> None:
    data = workbook({"Estimate": ESTIMATE_ROWS, "Notes": [["Seen by", None, "R. Haldane"]]})
    data = cached_value(data, "xl/worksheets/sheet1.xml", "SUM(B2:B3)", "1550.5")
    record = _read("estimate.xlsx", data)
    assert record.kind == "xlsx"
    estimate, notes = record.pages
    assert estimate.text.splitlines() == [
        "Estimate",
        "A1: Part | B1: Cost",
        "A2: Rear bumper cover | B2: 640",
        "A3: Tailgate, repair | B3: 910.5",
        "A4: Total | B4: 1550.5",
    ]
    assert "SUM" not in estimate.text  # the value saved with the file, never the formula
    assert notes.text.splitlines() == ["Notes", "A1: Seen by | C1: R. Haldane"]
    assert [p.number for p in record.pages] == [1, 2]


def test_a_macro_enabled_file_is_read_for_its_text_and_its_macros_left_alone() -> None:
    macro_type = b"application/vnd.ms-word.document.macroEnabled.main+xml"

    def as_docm(name: str, body: bytes) -> bytes:
        if name != "[Content_Types].xml":
            return body
        plain = b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
        return body.replace(plain, macro_type)

    macro = b'Attribute VB_Name = "ThisDocument"\nSub AutoOpen()\nShell "calc"\nEnd Sub\n'
    data = with_parts(word_note(), as_docm, {"word/vbaProject.bin": macro})
    assert macro_type in zipfile.ZipFile(io.BytesIO(data)).read("[Content_Types].xml")
    record = _read("note.docm", data)
    assert record.kind == "docx" and NOTE_PARAGRAPH in record.pages[0].text
    assert "AutoOpen" not in record.text and "Shell" not in record.text


@pytest.mark.parametrize("name", ["note.docx", "estimate.xlsx"])
def test_a_zip_bomb_dressed_as_office_is_too_large_before_anything_inflates(
    refused_unopened: Refuse, name: str
) -> None:
    real = word_note() if name.endswith(".docx") else workbook({"Estimate": ESTIMATE_ROWS})
    bomb = zip_bomb(real)
    assert len(bomb) < 100_000
    error = refused_unopened(name, bomb)
    assert error.code == "too_large" and "a zip bomb" in str(error)


def test_a_part_declared_over_the_cap_is_too_large(refused_unopened: Refuse) -> None:
    data = declaring(word_note(), "word/document.xml", MAX_ZIP_ENTRY_BYTES + 1)
    error = refused_unopened("note.docx", data)
    assert error.code == "too_large" and "word/document.xml" in str(error)


def test_too_many_parts_is_too_large(refused_unopened: Refuse) -> None:
    parts = {f"word/media/p{n}.xml": b"<p/>" for n in range(MAX_ZIP_ENTRIES)}
    error = refused_unopened("note.docx", with_parts(word_note(), added=parts))
    assert error.code == "too_large" and f"the cap is {MAX_ZIP_ENTRIES:,}" in str(error)


def test_a_part_that_holds_more_than_it_declares_is_never_inflated_past_it() -> None:
    # The directory says 100 bytes; zipfile stops there and the part fails its CRC check.
    note = word_note()
    document = zipfile.ZipFile(io.BytesIO(note)).read("word/document.xml")
    error = _refused("note.docx", declaring(note, "word/document.xml", 100))
    assert len(document) > 100
    assert error.code == "unreadable" and "CRC" in str(error)


def test_more_sheets_than_a_claim_may_have_pages_is_too_large() -> None:
    sheets = {f"Sheet {n}": [[n]] for n in range(MAX_PAGES + 1)}
    error = _refused("ledger.xlsx", workbook(sheets))
    assert error.code == "too_large" and f"the cap is {MAX_PAGES}" in str(error)


@pytest.mark.parametrize(
    ("cap", "rows", "shown"),
    [
        ("MAX_SHEET_ROWS", [[n] for n in range(11)], "over 10 rows of values"),
        ("MAX_WORKBOOK_CELLS", [[1, 2, 3, 4]] * 3, "over 10 cells with a value"),
        ("MAX_OFFICE_TEXT_CHARS", [["x" * 20]], "over 10 characters"),
    ],
)
def test_a_workbook_over_its_caps_is_too_large(
    monkeypatch: pytest.MonkeyPatch, cap: str, rows: list[list[object]], shown: str
) -> None:
    # The caps go to the child with each file: lowered here, a small workbook goes over them.
    monkeypatch.setattr(office, cap, 10)
    error = _refused("ledger.xlsx", workbook({"Ledger": rows}))
    assert error.code == "too_large" and shown in str(error)


def test_a_word_file_over_the_text_cap_is_too_large(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(office, "MAX_OFFICE_TEXT_CHARS", 50)
    error = _refused("note.docx", word_note())
    assert error.code == "too_large" and "over 50 characters" in str(error)


def test_a_zip_that_is_not_office_is_unsupported_type(refused_unopened: Refuse) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("photos/front.jpg", b"\xff\xd8\xff" + b"\x00" * 32)
    error = refused_unopened("photos.zip", out.getvalue())
    assert error.code == "unsupported_type" and "not a Word (.docx) or Excel" in str(error)


def test_an_office_file_saved_with_a_password_is_encrypted() -> None:
    error = _refused("locked.docx", compound_file())
    assert error.code == "encrypted" and "saved with a password" in str(error)


def test_an_old_word_file_is_unsupported_type() -> None:
    error = _refused("old.doc", compound_file("WordDocument"))
    assert error.code == "unsupported_type" and "old-format Office file" in str(error)


def test_a_broken_zip_is_unreadable() -> None:
    error = _refused("note.docx", word_note()[:4000])
    assert error.code == "unreadable" and "broken zip" in str(error)


def test_an_office_reader_past_its_time_limit_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A child that never answers. Which child was stopped is taken from the parent's side, so
    # the test holds however long the child takes to start on a busy machine.
    script = tmp_path / "office_reader.py"
    script.write_text("import time\ntime.sleep(600)\n")
    monkeypatch.setattr(office, "OFFICE_SCRIPT", script)
    servers = new_fork_servers()
    monkeypatch.setattr(office, "_FORKS", servers)
    stopped: list[int] = []
    stop = child_process.stop_child

    def recorded(process: subprocess.Popen[bytes] | ForkedChild) -> None:
        stopped.append(process.pid)
        stop(process)

    monkeypatch.setattr(child_process, "stop_child", recorded)
    monkeypatch.setenv("CLAIMS_CREW_PDF_TIMEOUT", "2")
    error = _refused("note.docx", word_note())
    servers.close()
    assert error.code == "too_large" and "did not finish within 2 s" in str(error)
    assert stopped, "the child past its limit was not stopped"
    with pytest.raises(ProcessLookupError):
        os.kill(stopped[0], 0)


def test_an_office_reader_over_its_memory_cap_is_too_large(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # About 12 MB of XML in 120,000 paragraphs (within the zip caps, inflating 4 times): the
    # child starts in well under 64 MiB of address space, and parsing this takes far more than
    # the 96 MiB given here (it reads within 128 MiB).
    rng = random.Random(0)
    words = [f"w{n}" for n in range(2000)]
    body = "".join(
        "<w:p><w:r><w:t>" + " ".join(rng.choices(words, k=12)) + "</w:t></w:r></w:p>"
        for _ in range(120_000)
    ).encode()
    large = with_parts(
        word_note(),
        lambda name, xml: (
            xml.replace(b"<w:body>", b"<w:body>" + body) if name == "word/document.xml" else xml
        ),
    )
    monkeypatch.setattr(office, "MAX_OFFICE_TEXT_CHARS", 1 << 30)
    budget = ClaimBudget(render=RenderLimits(memory_bytes=96 << 20))
    with pytest.raises(AttachmentError) as caught:
        read_attachment("report.docx", large, budget)
    assert caught.value.code == "too_large"
    assert "needs more than the 96 MiB the reader may use" in str(caught.value)
