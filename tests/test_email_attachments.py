"""E-mails as claims arrive in them: an .eml (quoted-printable, base64, HTML only, a charset no
one knows) and an Outlook .msg, their headers and decoded body one record and each file they
carry a record of its own, read by the same readers; nested e-mails followed to a fixed depth,
and every cap checked before the part it concerns is decoded."""

from __future__ import annotations

import base64
import json
import shutil
from datetime import UTC, datetime
from email.message import EmailMessage, Message
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.documents import email_mime, limits
from claims_crew.documents.email import looks_like_message
from claims_crew.documents.limits import MAX_EMAIL_DEPTH, AttachmentError, ClaimBudget
from claims_crew.documents.read import kind_of, read_document
from claims_crew.documents.record import AttachmentRecord, ReadFile
from claims_crew.errors import ClaimFileError
from claims_crew.llms.scripted import ScriptedLLM, final
from claims_crew.store import Store
from tests.support.attachments import INBOX, SPLIT_REPORT
from tests.support.cfb import compound_file
from tests.support.crew import FRAUD_EXCLUDED, INTAKE_WATER, POLICY_COVERED, Script
from tests.support.outlook import Outlook, outlook_message
from tests.support.paths import ROOT

SAMPLE_CLAIM = INBOX / "C-1052.json"
SAMPLE_EMAIL = "C-1052-email.eml"
SAMPLE_REPORT = f"{SAMPLE_EMAIL}/BL-4410-report.pdf"
PDF = (INBOX / SPLIT_REPORT).read_bytes()  # a two-page report with a text layer
PAGE_2 = "The damage started on 16 January 2026, when the pipe split overnight during the frost"
# Bytes no reader takes: read, they would refuse the claim as unsupported_type.
UNREADABLE = b"\xff\xfe\x00\x81" * 64


def _mail(body: str = "The pipe under the bath split.", **headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = headers.get("From", "Amara Okafor <amara@example.org>")
    message["To"] = "claims@harbour-mutual.example"
    message["Date"] = "Sun, 18 Jan 2026 09:30:00 +0000"
    message["Subject"] = headers.get("Subject", "Burst pipe")
    message.set_content(body)
    return message


def _read(name: str, data: bytes, budget: ClaimBudget | None = None) -> list[ReadFile]:
    return read_document(name, data, budget or ClaimBudget())


def _refused(name: str, data: bytes, budget: ClaimBudget | None = None) -> AttachmentError:
    with pytest.raises(AttachmentError) as caught:
        _read(name, data, budget)
    assert name in str(caught.value)
    return caught.value


MESSAGE = "From: a@example.org\nTo: b@example.org\nDate: Sun, 18 Jan 2026\nSubject: pipe\n\nHi"
FOLDED = "Received: from mx.example\n\tby mx2.example; Sun, 18 Jan 2026\n" + MESSAGE


@pytest.mark.parametrize(
    ("text", "is_message"),
    [
        (MESSAGE, True),
        (FOLDED, True),
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
    raw = (INBOX / SAMPLE_EMAIL).read_bytes()
    assert b"the=\n flexible hose" in raw and b"=C2=A31,850" in raw  # quoted-printable
    loaded = load_claim(SAMPLE_CLAIM, originals=tmp_path)
    assert list(loaded.documents) == [SAMPLE_EMAIL, SAMPLE_REPORT]
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
    message = _mail(From="Jürgen Müller <j@example.org>", Subject="Wasserschaden — Küche")
    message.set_content("Der Schlauch unter der Spüle ist geplatzt.", "plain", "iso-8859-1",
                        cte="base64")  # fmt: skip
    raw = message.as_bytes()
    assert b"geplatzt" not in raw and b"=?utf-8?" in raw
    [(record, _)] = _read("mail.eml", raw)
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
    message = _mail()
    message.set_content(html, subtype="html", cte="quoted-printable")
    [(record, _)] = _read("mail.eml", message.as_bytes())
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
    [(record, _)] = _read("mail.eml", raw)
    assert "The caf\ufffd pipe burst." in record.pages[0].text


def test_each_carried_file_is_read_by_the_readers_under_a_safe_unique_name() -> None:
    message = _mail()
    for name in ("../../etc/report.pdf", "report.pdf", "note\x07.pdf"):
        message.add_attachment(PDF, maintype="application", subtype="pdf", filename=name)
    message.add_attachment(b"Receipt 4471, 120.00\n", maintype="application",
                           subtype="octet-stream")  # fmt: skip
    files = _read("mail.eml", message.as_bytes())
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
    assert _read("mail.eml", message.as_bytes())[-1].record.name == "mail.eml/report-2.pdf"


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
    files = _read("claim.msg", msg)
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
    [(record, _)] = _read("hose.msg", msg)
    assert record.pages[0].text.endswith("\n\nThe hose split.\n\nPriya & Dev\n")


def test_an_ole_file_that_is_not_a_message_is_refused_as_before() -> None:
    word = compound_file({("WordDocument",): b"\x00" * 600, ("1Table",): b"\x00" * 100})
    error = _refused("old.doc", word)
    assert error.code == "unsupported_type" and ".doc or .xls" in str(error)


def _forwarded(levels: int, innermost: EmailMessage) -> bytes:
    """`innermost` forwarded `levels` times, each time as a message/rfc822 part."""
    message = innermost
    for level in range(levels):
        outer = _mail(f"Forwarding, level {level}.")
        outer.add_attachment(message)
        message = outer
    return message.as_bytes()


def test_forwarded_emails_are_followed_to_the_fixed_depth() -> None:
    files = _read("chain.eml", _forwarded(MAX_EMAIL_DEPTH, _mail("The original.")))
    assert [r.name for r, _ in files][-1] == "chain.eml" + "/part-1.eml" * MAX_EMAIL_DEPTH
    assert "The original." in files[-1].record.pages[0].text


def test_emails_nested_deeper_are_refused_before_any_part_is_read() -> None:
    innermost = _mail("Too deep.")
    innermost.add_attachment(UNREADABLE, maintype="application", subtype="octet-stream")
    error = _refused("chain.eml", _forwarded(MAX_EMAIL_DEPTH + 1, innermost))
    # Not unsupported_type: the unreadable file at the bottom was never reached.
    assert error.code == "too_deep" and f"followed {MAX_EMAIL_DEPTH} deep" in str(error)
    # Four hundred deep, written out here: the standard library's writer recurses per level.
    head = "From: a@example.org\nTo: b@example.org\nSubject: Fwd\nContent-Type: message/rfc822\n\n"
    deep = (head * 400 + "From: a@example.org\nTo: b@example.org\n\nHi\n").encode()
    assert _refused("deep.eml", deep).code == "too_deep"


def test_an_eml_file_attached_as_bytes_is_followed_and_held_to_the_depth() -> None:
    message = _mail("The original.")
    for _ in range(MAX_EMAIL_DEPTH + 1):
        outer = _mail("See the attached e-mail.")
        outer.add_attachment(message.as_bytes(), maintype="application",
                             subtype="octet-stream", filename="forwarded.eml")  # fmt: skip
        message = outer
    assert _refused("chain.eml", message.as_bytes()).code == "too_deep"


def test_many_files_in_one_email_are_refused_before_any_is_read() -> None:
    message = _mail()
    for number in range(limits.MAX_MESSAGE_FILES + 1):
        message.add_attachment(UNREADABLE, maintype="application", subtype="octet-stream",
                               filename=f"file-{number}.bin")  # fmt: skip
    error = _refused("many.eml", message.as_bytes())
    assert error.code == "too_large" and f"carries {limits.MAX_MESSAGE_FILES + 1} files" in str(
        error
    )


def test_the_files_a_claim_s_emails_carry_are_counted_together() -> None:
    message = _mail()
    for number in range(limits.MAX_MESSAGE_FILES):
        message.add_attachment(f"Line {number}\n".encode(), maintype="text", subtype="plain",
                               filename=f"note-{number}.txt")  # fmt: skip
    budget = ClaimBudget()
    for number in range(limits.MAX_CLAIM_CARRIED_FILES // limits.MAX_MESSAGE_FILES):
        assert len(_read(f"mail-{number}.eml", message.as_bytes(), budget)) == 21
    error = _refused("one-more.eml", message.as_bytes(), budget)
    assert error.code == "too_large" and "carry more than" in str(error)


def test_a_huge_decoded_part_is_refused_from_its_encoded_length(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded = email_mime._decoded

    def never(part: Message) -> bytes:
        assert email_mime.decoded_size(part) < 1 << 20, "a part over the cap was decoded"
        return decoded(part)

    # A body of 1.5 MB under base64: its decoded size is known from its encoded length.
    message = _mail()
    message.set_content(b"x" * (3 << 19), maintype="text", subtype="plain", cte="base64")
    monkeypatch.setattr(email_mime, "_decoded", never)
    error = _refused("huge.eml", message.as_bytes())
    assert error.code == "too_large" and "its body is 1,572,864 bytes decoded" in str(error)
    # A carried file over the cap of one document (lowered, so that the test stays small).
    monkeypatch.setattr(limits, "MAX_DOCUMENT_BYTES", 1 << 20)
    message = _mail()
    message.add_attachment(b"\0" * (3 << 19), maintype="application", subtype="octet-stream",
                           filename="big.bin")  # fmt: skip
    error = _refused("huge.eml", message.as_bytes())
    assert error.code == "too_large" and "big.bin is 1,572,864 bytes decoded" in str(error)


def test_a_refused_carried_file_refuses_the_claim_with_its_own_code(tmp_path: Path) -> None:
    message = _mail()
    message.add_attachment(UNREADABLE, maintype="application", subtype="octet-stream",
                           filename="winmail.dat")  # fmt: skip
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "mail.eml").write_bytes(message.as_bytes())
    fields = json.loads(SAMPLE_CLAIM.read_text(encoding="utf-8"))
    path = inbox / "C-1052.json"
    path.write_text(json.dumps({**fields, "attachments": ["mail.eml"]}), encoding="utf-8")
    with pytest.raises(ClaimFileError) as caught:
        load_claim(path)
    assert caught.value.code == "unsupported_type"
    assert "mail.eml/winmail.dat" in str(caught.value)


def test_a_claim_read_again_keeps_its_carried_records(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in (SAMPLE_CLAIM.name, SAMPLE_EMAIL):
        shutil.copy(INBOX / name, inbox)
    first = load_claim(inbox / SAMPLE_CLAIM.name)
    # The e-mail replaced since: what was read stays the text of record, the change reported.
    (inbox / SAMPLE_EMAIL).write_bytes(_mail("Another message.").as_bytes())

    def kept(claim_id: str, sha256: str) -> dict[str, AttachmentRecord] | None:
        return dict(first.documents) if (claim_id, sha256) == ("C-1052", first.sha256) else None

    again = load_claim(inbox / SAMPLE_CLAIM.name, kept=kept)
    assert again.documents == first.documents and again.changed == (SAMPLE_EMAIL,)
    # An appeal takes the claim's kept records: the e-mail's carried ones come with it.
    taken = load_claim(inbox / SAMPLE_CLAIM.name, taken=first.documents)
    assert list(taken.documents) == [SAMPLE_EMAIL, SAMPLE_REPORT]


def test_base64_payload_size_is_worked_out_before_decoding() -> None:
    message = _mail()
    data = bytes(range(256)) * 40
    message.add_attachment(data, maintype="application", subtype="octet-stream")
    [part] = message.iter_attachments()
    assert part["Content-Transfer-Encoding"] == "base64"
    assert len(str(part.get_payload())) > len(base64.b64encode(data))  # line breaks too
    assert email_mime.decoded_size(part) == len(data)


def _bombs(inbox: Path) -> dict[str, str]:
    """A claim for each e-mail bomb; returns file name → the code the run must give."""
    fields = json.loads(SAMPLE_CLAIM.read_text(encoding="utf-8"))
    many = _mail()
    for number in range(limits.MAX_MESSAGE_FILES + 1):
        many.add_attachment(UNREADABLE, maintype="application", subtype="octet-stream",
                            filename=f"file-{number}.bin")  # fmt: skip
    huge = _mail()
    huge.set_content(b"x" * (3 << 19), maintype="text", subtype="plain", cte="base64")
    bombs = {
        "X-mail-deep": (_forwarded(MAX_EMAIL_DEPTH + 1, _mail()), "too_deep"),
        "X-mail-many": (many.as_bytes(), "too_large"),
        "X-mail-huge": (huge.as_bytes(), "too_large"),
    }
    for claim_id, (data, _) in bombs.items():
        (inbox / f"{claim_id}.eml").write_bytes(data)
        claim = {**fields, "claim_id": claim_id, "attachments": [f"{claim_id}.eml"]}
        (inbox / f"{claim_id}.json").write_text(json.dumps(claim), encoding="utf-8")
    return {f"{claim_id}.json": code for claim_id, (_, code) in bombs.items()}


@pytest.mark.slow
def test_email_bombs_are_refused_while_the_rest_of_the_inbox_is_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script()
    script.llms = {
        "intake": ScriptedLLM(responder=lambda _m: final(INTAKE_WATER)),
        "policy": ScriptedLLM(responder=lambda _m: final(POLICY_COVERED)),
        "fraud": ScriptedLLM(responder=lambda _m: final(FRAUD_EXCLUDED)),
    }
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    monkeypatch.setattr(
        "claims_crew.llms.select.default_llm_factory", lambda *_args, **_kwargs: script
    )
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in (SAMPLE_CLAIM.name, SAMPLE_EMAIL):
        shutil.copy(INBOX / name, inbox)
    bad = _bombs(inbox)
    result = CliRunner().invoke(main, ["run", "--inbox", str(inbox)], env={"COLUMNS": "400"})
    assert result.exit_code == 1, result.output
    for name, code in bad.items():
        row = next(line for line in result.output.splitlines() if f"│ {name} " in line)
        assert f"bad claim file ({code})" in row, row
    record = Store().claim_record("C-1052")
    assert record is not None and record.status == "reviewed"
    assert f"{len(bad)} claim(s) failed" in result.output


def test_a_broken_outlook_message_is_refused_with_a_code() -> None:
    # The PDF lands in the file's first sectors: the file is still told by its own signature.
    message = outlook_message(Outlook({"0037": "x", "1000": "Body."}, files=[("a.pdf", PDF)]))
    assert PDF[:5] in message[:1024] and kind_of("x.msg", message) == "email"
    assert [r.name for r, _ in _read("x.msg", message)] == ["x.msg", "x.msg/a.pdf"]
    # Cut short, its allocation table is gone: not an Outlook message any more.
    assert _refused("x.msg", message[: len(message) // 2]).code == "unsupported_type"
    # Its sectors overwritten: the message is read, the garbled file it carries refused.
    garbled = bytearray(message)
    garbled[600:3000] = b"\xff" * 2400
    error = _refused("x.msg", bytes(garbled))
    assert error.code == "unsupported_type" and "x.msg/" in str(error)


def test_a_text_file_in_another_charset_is_read_as_the_text_it_says() -> None:
    message = _mail()
    message.add_attachment("Reçu: 120 € payés".encode("iso-8859-15"), maintype="text",
                           subtype="plain", filename="reçu.txt")  # fmt: skip
    message.get_payload()[-1].set_param("charset", "iso-8859-15")
    [_, (record, data)] = _read("mail.eml", message.as_bytes())
    assert (record.name, record.kind) == ("mail.eml/reçu.txt", "text")
    assert record.pages[0].text == "Reçu: 120 € payés" and data == record.pages[0].text.encode()
