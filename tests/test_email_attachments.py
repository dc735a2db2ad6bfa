"""E-mails as claims arrive in them: an .eml (quoted-printable, base64, HTML only, a charset no
one knows) and an Outlook .msg, their headers and decoded body one record and each file they
carry a record of its own, read by the same readers and named under the message."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.documents.mail.read import looks_like_message
from claims_crew.documents.read import kind_of
from claims_crew.documents.record import AttachmentRecord
from tests.support.attachments import INBOX
from tests.support.cfb import compound_file
from tests.support.email_claim import HOSE_CLAIM, HOSE_EMAIL, HOSE_REPORT
from tests.support.mail import PDF, mail, read_all, refused
from tests.support.outlook import Outlook, outlook_message

PAGE_2 = "The damage started on 16 January 2026, when the pipe split overnight during the frost"


MESSAGE = "From: a@example.org\nTo: b@example.org\nDate: Sun, 18 Jan 2026\nSubject: pipe\n\nHi"
FOLDED = "Received: from mx.example\n\tby mx2.example; Sun, 18 Jan 2026\n" + MESSAGE


@pytest.mark.parametrize(
    ("text", "is_message"),
    [
        (MESSAGE, True),
        (FOLDED, True),
        ("From amara@example.org Sun Jan 18 09:30:00 2026\n" + MESSAGE, True),
        ("MIME-Version: 1.0\nContent-Type: text/plain\nMessage-ID: <1@x>\n\nbody", True),
        # A note that starts as an e-mail's subject line does: one header, then a letter.
        ("Subject: burst pipe\n\nDear claims team, the pipe burst.", False),
        ("Subject: pipe\nFrom: me\nDate: today\nThe pipe burst on Monday.\n", False),
        ("Plumber's note: the pipe split.\nDate: 17 January\n", False),
    ],
)
def test_a_message_is_told_from_its_header_block(text: str, is_message: bool) -> None:
    assert looks_like_message(text) is is_message
    assert kind_of("x.txt", text.encode()) == ("email" if is_message else "text")


def test_the_sample_email_s_body_and_its_pdf_are_records_of_the_claim(tmp_path: Path) -> None:
    raw = (INBOX / HOSE_EMAIL).read_bytes()
    assert b"the=\n flexible hose" in raw and b"=C2=A31,850" in raw  # quoted-printable
    loaded = load_claim(HOSE_CLAIM, originals=tmp_path)
    assert list(loaded.documents) == [HOSE_EMAIL, HOSE_REPORT]
    mail, report = loaded.documents.values()
    assert mail.kind == "email" and [p.number for p in mail.pages] == [1]
    text = mail.pages[0].text
    assert "Subject: Water damage in the kitchen, policy HM-HOME-001\n" in text
    assert "From: Priya Raman <priya.raman@example.org>\n" in text
    assert "Date: Tue, 10 Feb 2026 08:42:00 +0000\n" in text
    assert "Attached: BL-4410-report.pdf\n" in text
    # Soft line breaks joined, the pound sign decoded, the HTML alternative not read twice.
    assert "the flexible hose feeding the dishwasher had split under the sink" in text
    assert "quoted at £1,850." in text and text.count("Dear claims team") == 1
    assert report.kind == "pdf" and [p.number for p in report.pages] == [1, 2]
    assert "The damage started on 9 February 2026" in report.pages[1].text
    # Each original is kept by its hash: the PDF as it was decoded from the e-mail.
    assert mail.kept_at and Path(mail.kept_at).read_bytes() == raw
    assert report.kept_at and Path(report.kept_at).read_bytes()[:5] == b"%PDF-"


def test_a_base64_body_and_encoded_headers_are_decoded() -> None:
    message = mail(From="Jürgen Müller <j@example.org>", Subject="Wasserschaden — Küche")
    message.set_content("Der Schlauch unter der Spüle ist geplatzt.", "plain", "iso-8859-1",
                        cte="base64")  # fmt: skip
    raw = message.as_bytes()
    assert b"geplatzt" not in raw and b"=?utf-8?" in raw
    [(record, _)] = read_all("mail.eml", raw)
    text = record.pages[0].text
    assert "From: Jürgen Müller <j@example.org>\n" in text
    assert "Subject: Wasserschaden — Küche\n" in text
    assert "Der Schlauch unter der Spüle ist geplatzt." in text


def test_an_html_only_email_is_read_as_its_text() -> None:
    html = (
        "<html><head><style>p { color: red }</style><script>alert('x')</script></head><body>"
        "<p>The hose &amp; valve split&nbsp;on 9&nbsp;February.</p><div>Repairs: &pound;1,850"
        "<br>Priya</div><table><tr><td>Floor</td><td>1,200</td></tr></table></body></html>"
    )
    message = mail()
    message.set_content(html, subtype="html", cte="quoted-printable")
    [(record, _)] = read_all("mail.eml", message.as_bytes())
    body = record.pages[0].text.split("\n\n", 1)[1]
    assert [line for line in body.splitlines() if line] == [
        "The hose & valve split on 9 February.",
        "Repairs: £1,850",
        "Priya",
        "Floor 1,200",
    ]
    assert "alert" not in body and "color" not in body


def test_a_charset_no_one_knows_is_read_with_replacements() -> None:
    # 8-bit, not UTF-8: told an e-mail by its head all the same.
    raw = (
        b"From: a@example.org\nTo: b@example.org\nSubject: caf\xc3\xa9\nMIME-Version: 1.0\n"
        b'Content-Type: text/plain; charset="x-no-such-charset"\n'
        b"Content-Transfer-Encoding: 8bit\n\nThe caf\xe9 pipe burst.\n"
    )
    [(record, _)] = read_all("mail.eml", raw)
    assert "The caf\ufffd pipe burst." in record.pages[0].text


def test_each_carried_file_is_read_by_the_readers_under_a_safe_unique_name() -> None:
    message = mail()
    for name in ("../../etc/report.pdf", "report.pdf", "note\x07.pdf"):
        message.add_attachment(PDF, maintype="application", subtype="pdf", filename=name)
    message.add_attachment(b"Receipt 4471, 120.00\n", maintype="application",
                           subtype="octet-stream")  # fmt: skip
    files = read_all("mail.eml", message.as_bytes())
    names = [record.name for record, _ in files]
    assert names == [
        "mail.eml",
        "mail.eml/_.._etc_report.pdf",
        "mail.eml/report.pdf",
        "mail.eml/note_.pdf",
        "mail.eml/part-4.bin",
    ]
    assert [r.kind for r, _ in files] == ["email", "pdf", "pdf", "pdf", "text"]
    assert PAGE_2 in files[2].record.pages[1].text
    assert files[2].data == PDF  # the bytes kept are the decoded file's
    assert files[4].record.pages[0].text == "Receipt 4471, 120.00\n"
    # Two files of one name are two records, the second numbered.
    message.add_attachment(PDF, maintype="application", subtype="pdf", filename="report.pdf")
    assert read_all("mail.eml", message.as_bytes())[-1].record.name == "mail.eml/report-2.pdf"


def test_an_outlook_message_is_read_with_its_attachments() -> None:
    ceiling = Outlook({"0037": "The ceiling", "0C1A": "Amara Okafor", "1000": "Still wet."})
    msg = outlook_message(
        Outlook(
            {
                "0037": "Burst pipe claim",
                "0C1A": "Amara Okafor",
                "5D01": "amara@example.org",
                "0E04": "Claims Team",
                "0E03": "Kestrel Plumbing",
                "1000": "The pipe under the bath split overnight.",
            },
            sent=datetime(2026, 1, 18, 9, 30, tzinfo=UTC),
            files=[("plumber.pdf", PDF)],
            messages=[("ceiling.msg", ceiling)],
        )
    )
    assert kind_of("claim.msg", msg) == "email"
    files = read_all("claim.msg", msg)
    assert [(r.name, r.kind) for r, _ in files] == [
        ("claim.msg", "email"),
        ("claim.msg/plumber.pdf", "pdf"),
        ("claim.msg/ceiling.msg", "email"),
    ]
    assert files[0].record.pages[0].text == (
        "From: Amara Okafor <amara@example.org>\nTo: Claims Team\nCc: Kestrel Plumbing\n"
        "Date: Sun, 18 Jan 2026 09:30:00 +0000\nSubject: Burst pipe claim\n"
        "Attached: plumber.pdf, ceiling.msg\n\nThe pipe under the bath split overnight.\n"
    )
    assert PAGE_2 in files[1].record.pages[1].text and files[1].data == PDF
    assert "Subject: The ceiling\n\nStill wet." in files[2].record.pages[0].text


def test_an_outlook_message_with_an_html_body_alone() -> None:
    html = b"<html><body><p>The hose split.</p><p>Priya &amp; Dev</p></body></html>"
    msg = outlook_message(Outlook({"0037": "Hose", "0C1A": "Priya Raman"}, html=html))
    [(record, _)] = read_all("hose.msg", msg)
    assert record.pages[0].text.endswith("\n\nThe hose split.\n\nPriya & Dev\n")


def test_an_ole_file_that_is_not_a_message_is_refused_as_before() -> None:
    word = compound_file({("WordDocument",): b"\x00" * 600, ("1Table",): b"\x00" * 100})
    error = refused("old.doc", word)
    assert error.code == "unsupported_type" and ".doc or .xls" in str(error)


def test_a_claim_read_again_keeps_its_carried_records(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in (HOSE_CLAIM.name, HOSE_EMAIL):
        shutil.copy(INBOX / name, inbox)
    first = load_claim(inbox / HOSE_CLAIM.name)
    # The e-mail replaced since: what was read stays the text of record, the change reported.
    (inbox / HOSE_EMAIL).write_bytes(mail("Another message.").as_bytes())

    def kept(claim_id: str, sha256: str) -> dict[str, AttachmentRecord] | None:
        return dict(first.documents) if (claim_id, sha256) == ("C-1052", first.sha256) else None

    again = load_claim(inbox / HOSE_CLAIM.name, kept=kept)
    assert again.documents == first.documents and again.changed == (HOSE_EMAIL,)
    # An appeal takes the claim's kept records: the e-mail's carried ones come with it.
    taken = load_claim(inbox / HOSE_CLAIM.name, taken=first.documents)
    assert list(taken.documents) == [HOSE_EMAIL, HOSE_REPORT]


def test_a_broken_outlook_message_is_refused_with_a_code() -> None:
    # The PDF lands in the file's first sectors: the file is still told by its own signature.
    message = outlook_message(Outlook({"0037": "x", "1000": "Body."}, files=[("a.pdf", PDF)]))
    assert PDF[:5] in message[:1024] and kind_of("x.msg", message) == "email"
    assert [r.name for r, _ in read_all("x.msg", message)] == ["x.msg", "x.msg/a.pdf"]
    # Cut short, its allocation table is gone: not an Outlook message any more.
    assert refused("x.msg", message[: len(message) // 2]).code == "unsupported_type"
    # Its sectors overwritten: the message is read and kept, the garbled file it carries named
    # on its record as not read.
    garbled = bytearray(message)
    garbled[600:3000] = b"\xff" * 2400
    [(record, _)] = read_all("x.msg", bytes(garbled))
    [part] = record.unread
    assert part.name.startswith("x.msg/") and (part.code, part.decoration) == (
        "unsupported_type",
        False,
    )
    assert "Body." in record.text and part.line() in record.text


def test_a_text_file_in_another_charset_is_read_as_the_text_it_says() -> None:
    message = mail()
    message.add_attachment("Reçu: 120 € payés".encode("iso-8859-15"), maintype="text",
                           subtype="plain", filename="reçu.txt")  # fmt: skip
    message.get_payload()[-1].set_param("charset", "iso-8859-15")
    [_, (record, data)] = read_all("mail.eml", message.as_bytes())
    assert (record.name, record.kind) == ("mail.eml/reçu.txt", "text")
    assert record.pages[0].text == "Reçu: 120 € payés" and data == record.pages[0].text.encode()
