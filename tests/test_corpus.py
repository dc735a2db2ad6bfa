"""Real public files (../shared/corpus/, from the test corpora of Apache Tika, POI, PDFBox and
MimeKit) read through the one reader entry, against the items a handler needs from each, written
down by hand in expected.yaml. A ratchet: KNOWN_MISSES and KNOWN_REFUSED hold what today's
readers miss; an item missed outside them fails, and so does one in them that is now read, so
the lists can only shrink as the readers improve. bench/corpus.py prints the same figures."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.documents.limits import ClaimBudget
from claims_crew.documents.read import read_document
from claims_crew.documents.record import records_from_json, records_json
from tests.support.paths import ROOT
from tests.support.scripts import load_script

BENCH: ModuleType = load_script(ROOT / "bench" / "corpus.py")
EXPECTED = BENCH.expected()
pytestmark = pytest.mark.skipif(
    not BENCH.CORPUS.is_dir(),
    reason=f"{BENCH.CORPUS} is absent: the real corpus files live in ../shared/corpus/",
)

# Files today's readers refuse whole, with the code: none of their items is read.
KNOWN_REFUSED: dict[str, str] = {}
# Items of files that are read, which today's readers miss.
KNOWN_MISSES: set[tuple[str, str]] = {
    ("office/tika_word_embedded_pdf.docx", "embedded pdf text"),  # an OLE object, not read
    ("office/tika_word_embedded_pdf.docx", "embedded pdf name"),
}


@functools.cache
def _reading(name: str) -> tuple[str, str | None]:
    """Each file read once for the module (the images go through OCR)."""
    reading = BENCH.read(name)
    return reading.text, reading.refused


def _cases() -> list[object]:
    return [
        pytest.param(name, marks=pytest.mark.slow) if entry.kind == "images" else name
        for name, entry in EXPECTED.items()
    ]


def test_the_corpus_is_every_file_and_each_file_is_expected() -> None:
    on_disk = {
        str(p.relative_to(BENCH.CORPUS))
        for p in BENCH.CORPUS.rglob("*")
        if p.is_file() and p.parent != BENCH.CORPUS
    }
    assert on_disk == set(EXPECTED) and len(on_disk) == 23
    assert all(name.split("/")[0] == entry.kind for name, entry in EXPECTED.items())
    assert {name for name, _ in KNOWN_MISSES} <= set(EXPECTED) - set(KNOWN_REFUSED)
    labels = {(name, item.label) for name, entry in EXPECTED.items() for item in entry.items}
    assert labels >= KNOWN_MISSES


@pytest.mark.parametrize("name", _cases())
def test_every_expected_item_reaches_the_text_of_record(name: str) -> None:
    text, refused = _reading(name)
    if name in KNOWN_REFUSED:
        assert refused is not None, f"{name}: now read: remove it from KNOWN_REFUSED"
        assert refused == KNOWN_REFUSED[name]
        return
    assert refused is None, f"{name}: refused whole ({refused})"
    items = EXPECTED[name].items
    missed = {item.label for item in items if not BENCH.is_read(item, text)}
    known = {label for file, label in KNOWN_MISSES if file == name}
    assert sorted(missed - known) == [], f"{name}: missed"
    assert sorted(known - missed) == [], f"{name}: now read: remove it from KNOWN_MISSES"


def test_an_item_is_matched_with_case_and_spacing_aside_and_not_otherwise() -> None:
    item = BENCH.Item(label="value", words=["/Yes", "Ticked"])
    assert BENCH.is_read(item, "A check box:\n  TICKED")
    assert not BENCH.is_read(item, "A check box: No")
    spaced = BENCH.Item(label="quoted", words="Subject:  Testing")
    assert BENCH.is_read(spaced, "subject:\nTesting") and not BENCH.is_read(spaced, "Testing")


def test_real_mail_and_forms_through_intake_keep_their_values(tmp_path: Path) -> None:
    names = [
        "mail/poi_attachment_msg_pdf.msg",
        "mail/tika_groupwise_forwarded.eml",
        "forms/tika_acroform3.pdf",
        "forms/tika_xfa_govdocs1_258578.pdf",
    ]
    for name in names:
        shutil.copyfile(BENCH.CORPUS / name, tmp_path / Path(name).name)
    attachments = ", ".join(f'"{Path(n).name}"' for n in names)
    (tmp_path / "C-9051.json").write_text(
        '{"claim_id": "C-9051", "policy_id": "HM-HOME-001", "claimant": "Nick Booth", '
        '"date_reported": "2026-02-10", "date_of_loss": "2026-02-09", '
        '"description": "Forms and e-mails attached.", "amount": 100, "currency": "GBP", '
        f'"attachments": [{attachments}]}}',
        encoding="utf-8",
    )
    loaded = load_claim(tmp_path / "C-9051.json", originals=tmp_path / "kept")
    # As the store keeps them, and reads them back for every view.
    stored = records_from_json(records_json(loaded.documents))
    msg, pdf = "poi_attachment_msg_pdf.msg", "poi_attachment_msg_pdf.msg/smbprn.00009008.KdcPjl.pdf"
    fwd = "tika_groupwise_forwarded.eml"
    assert list(stored) == [
        msg,
        f"{msg}/Test Attachment",
        pdf,
        fwd,
        f"{fwd}/test.eml",
        f"{fwd}/Neues Textdokument.txt",
        "tika_acroform3.pdf",
        "tika_xfa_govdocs1_258578.pdf",
    ]
    outlook = stored[msg].pages[0].text
    assert "Subject: test email\n" in outlook and "Date: Fri, 18 Jun 2010 09:54:19 +1000" in outlook
    assert "Test email with 1 msg attachment, 1 pdf" in outlook
    assert "Subject: Test Attachment" in stored[f"{msg}/Test Attachment"].pages[0].text
    assert "Blah blah blah" in stored[f"{msg}/Test Attachment"].pages[0].text
    assert stored[pdf].kind == "pdf" and "Sent: Friday, 18 June 2010 9:52 AM" in stored[pdf].text
    assert "Subject: test333" in stored[fwd].pages[0].text
    assert stored[f"{fwd}/Neues Textdokument.txt"].text == "ssssssssssssssssssssss"
    acro = stored["tika_acroform3.pdf"].pages[0].text
    for line in ("TIKA-1226", "A combo box: comboExportB", "A list box: exportListItemC"):
        assert line in acro
    xfa = stored["tika_xfa_govdocs1_258578.pdf"].text
    for value in ("my_school", "my_teacher_name4", "my_room3", "my_numSt2", "my_date3"):
        assert value in xfa
    assert "Young Abraham Lincoln (Ranger Ed)" in xfa
    assert all(not record.unread for record in stored.values())


def test_an_object_embedded_in_a_word_file_is_named_as_not_read() -> None:
    """The PDF inside tika_word_embedded_pdf.docx sits in two OLE objects no reader opens: the
    Word file's text is kept, and each object is named on its record and in its text, so the
    claim goes to a person (resolver/gates.py) rather than being decided without them."""
    name = "office/tika_word_embedded_pdf.docx"
    record = read_document(name, (BENCH.CORPUS / name).read_bytes(), ClaimBudget())[0].record
    assert [(p.name, p.code, p.decoration) for p in record.unread] == [
        (f"{name}/oleObject2.bin", "unsupported_type", False),
        (f"{name}/oleObject1.bin", "unsupported_type", False),
    ]
    assert "Bye for real." in record.text
    assert f"Not read: {name}/oleObject1.bin" in record.text
