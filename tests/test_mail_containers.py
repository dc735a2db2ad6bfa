"""Real mail as it arrives: an e-mail, an Outlook .msg, a forwarded message or a winmail.dat
keeps every record it could read, and a part it carries that cannot be read is named on the
outermost e-mail's record and in its text ("Not read: ..."); GIF, BMP, TIFF and WebP are images;
HTML files are read as their text; forwarded messages are decoded whatever their encoding.

The real files are public test files of Apache Tika and MimeKit (../shared/corpus/, named as in
its README, which gives each one's source and licence). Each is read through
read_document and through intake's own reading of a claim file (load_claim).
"""

from __future__ import annotations

import base64
import io
import json
import quopri
from email.message import EmailMessage
from pathlib import Path

import pytest
from PIL import Image

from claims_crew.claim_files import load_claim
from claims_crew.documents.limits import DECORATION_IMAGE_BYTES
from claims_crew.documents.record import AttachmentRecord
from tests.support.email_claim import HOSE_CLAIM
from tests.support.mail import mail, read_all
from tests.support.ocr import needs_tesseract
from tests.support.outlook import Outlook, outlook_message
from tests.support.paths import ROOT, shared_corpus_file

GIF_LOGO_MAIL = "tika_multipart_gif_attachment.eml"
WINMAIL = "mimekit_winmail_dat.eml"
FORWARDED_BASE64 = "tika_groupwise_forwarded.eml"
POLICY_PDF = (ROOT / "policies" / "harbour_home.pdf").read_bytes()
# A GIF's first bytes and no more: an image no reader can open.
BROKEN_GIF = b"GIF89a" + b"\x00" * 40


def _intake(tmp_path: Path, name: str, data: bytes) -> dict[str, AttachmentRecord]:
    """The records intake reads from a claim file whose one attachment is `name`."""
    inbox = tmp_path / "inbox"
    inbox.mkdir(exist_ok=True)
    (inbox / name).write_bytes(data)
    fields = json.loads(HOSE_CLAIM.read_text(encoding="utf-8"))
    claim = inbox / "C-1052.json"
    claim.write_text(json.dumps({**fields, "attachments": [name]}), encoding="utf-8")
    return dict(load_claim(claim).documents)


def _forwarding(inner: EmailMessage, encoding: str | None = None) -> bytes:
    """`inner` forwarded as a message/rfc822 part, as it is or in a transfer encoding."""
    outer = mail("Forwarding the plumber's message.", Subject="Fwd: Burst pipe")
    if encoding is None:
        outer.add_attachment(inner)
        return outer.as_bytes()
    part = EmailMessage()
    part["Content-Type"] = "message/rfc822"
    part["Content-Transfer-Encoding"] = encoding
    data = inner.as_bytes()
    encoded = base64.encodebytes(data) if encoding == "base64" else quopri.encodestring(data)
    part.set_payload(encoded.decode("ascii"))
    outer.make_mixed()
    outer.attach(part)
    return outer.as_bytes()


@needs_tesseract
def test_the_gif_logo_email_is_read_whole_with_its_logo(tmp_path: Path) -> None:
    raw = shared_corpus_file(f"mail/{GIF_LOGO_MAIL}").read_bytes()
    for records in (
        {r.name: r for r, _ in read_all(GIF_LOGO_MAIL, raw)},
        _intake(tmp_path, GIF_LOGO_MAIL, raw),
    ):
        assert list(records) == [GIF_LOGO_MAIL, f"{GIF_LOGO_MAIL}/logo.gif"]
        message, logo = records.values()
        assert message.kind == "email" and message.unread == []
        assert "From: DigitalPebble <julien@digitalpebble.com>\n" in message.text
        assert "Subject: Test Multi Part Message\n" in message.text
        assert "Attached: logo.gif\n" in message.text
        assert "This is a test for parsing multi-part mails." in message.text
        # Once unsupported_type, refusing the claim: now an image, read by OCR.
        assert logo.kind == "image" and [p.source for p in logo.pages] == ["ocr"]
        assert "digitalPebble" in logo.pages[0].text


def test_a_truncated_pdf_in_a_forwarded_message_keeps_every_readable_record(
    tmp_path: Path,
) -> None:
    inner = mail("The report is attached.", Subject="Plumber's report")
    inner.add_attachment(POLICY_PDF[: len(POLICY_PDF) // 3], maintype="application",
                         subtype="pdf", filename="broken.pdf")  # fmt: skip
    inner.add_attachment(b"Receipt 4471, 120.00\n", maintype="text", subtype="plain",
                         filename="receipt.txt")  # fmt: skip
    raw = _forwarding(inner)
    for records in (
        {r.name: r for r, _ in read_all("m.eml", raw)},
        _intake(tmp_path, "m.eml", raw),
    ):
        assert list(records) == ["m.eml", "m.eml/part-1.eml", "m.eml/part-1.eml/receipt.txt"]
        outer, forwarded, receipt = records.values()
        [part] = outer.unread
        assert (part.name, part.content_type, part.code) == (
            "m.eml/part-1.eml/broken.pdf",
            "application/pdf",
            "unreadable",
        )
        assert part.size == len(POLICY_PDF) // 3 and not part.decoration
        # Named in the outermost record's text, which the intake agent is shown.
        assert part.line() in outer.text and part.line().startswith("Not read: m.eml/part-1.eml")
        assert "Forwarding the plumber's message." in outer.text
        assert forwarded.unread == [] and "Subject: Plumber's report\n" in forwarded.text
        assert "The report is attached." in forwarded.text
        assert receipt.pages[0].text == "Receipt 4471, 120.00\n"


@pytest.mark.parametrize("encoding", ["base64", "quoted-printable"])
def test_a_forwarded_message_in_a_transfer_encoding_is_decoded(encoding: str) -> None:
    inner = mail("Wir haben den Schaden gemeldet.", Subject="Schaden — Küche",
                 From="Jürgen Müller <j@example.org>")  # fmt: skip
    raw = _forwarding(inner, encoding)
    # Encoded as a whole: its headers' "=" written "=3D" in quoted-printable.
    assert (b"Wir haben den Schaden" in raw) is (encoding != "base64")
    assert (b"charset=3D" in raw) is (encoding == "quoted-printable")
    files = read_all("m.eml", raw)
    assert [(r.name, r.kind) for r, _ in files] == [
        ("m.eml", "email"),
        ("m.eml/part-1.eml", "email"),
    ]
    text = files[1].record.text
    assert "From: Jürgen Müller <j@example.org>\n" in text
    assert "Date: Sun, 18 Jan 2026 09:30:00 +0000\n" in text
    assert "Subject: Schaden — Küche\n" in text and "Wir haben den Schaden gemeldet." in text


def test_the_groupwise_base64_forwarded_message_is_decoded(tmp_path: Path) -> None:
    raw = shared_corpus_file(f"mail/{FORWARDED_BASE64}").read_bytes()
    for records in (
        {r.name: r for r, _ in read_all(FORWARDED_BASE64, raw)},
        _intake(tmp_path, FORWARDED_BASE64, raw),
    ):
        forwarded = records[f"{FORWARDED_BASE64}/test.eml"]
        assert forwarded.kind == "email" and forwarded.unread == []
        assert "Subject: test2\n" in forwarded.text
        assert "Date: Thu, 27 Jun 2013 13:27:12 +0200\n" in forwarded.text
        assert "From: " in forwarded.text and "TWltZS1W" not in forwarded.text
        note = records[f"{FORWARDED_BASE64}/Neues Textdokument.txt"]
        assert note.kind == "text" and note.pages[0].text.strip()


def test_winmail_dat_gives_its_body(tmp_path: Path) -> None:
    raw = shared_corpus_file(f"mail/{WINMAIL}").read_bytes()
    for records in (
        {r.name: r for r, _ in read_all(WINMAIL, raw)},
        _intake(tmp_path, WINMAIL, raw),
    ):
        assert list(records) == [WINMAIL, f"{WINMAIL}/winmail.dat"]
        message, tnef = records.values()
        assert "Subject: rr test 7\n" in message.text and message.unread == []
        assert tnef.kind == "email"
        body = tnef.text.split("\n\n", 1)[1]
        assert "шостий" in body and "RR Test 1" in body and "<" not in body


def test_a_winmail_dat_that_cannot_be_parsed_is_an_unread_part() -> None:
    message = mail()
    message.add_attachment(b"\x78\x9f\x3e\x22\x01\x00" + b"\xff" * 40, maintype="application",
                           subtype="ms-tnef", filename="winmail.dat")  # fmt: skip
    [(record, _)] = read_all("m.eml", message.as_bytes())
    [part] = record.unread
    assert (part.name, part.content_type, part.code) == (
        "m.eml/winmail.dat",
        "application/ms-tnef",
        "unreadable",
    )
    assert part.line() in record.text


def test_inline_and_small_images_not_read_are_decoration() -> None:
    message = mail()
    message.add_alternative('<p>Hi</p><img src="cid:logo@harbour">', subtype="html")
    big = BROKEN_GIF + b"\x00" * DECORATION_IMAGE_BYTES
    for data, cid in ((big, "<logo@harbour>"), (big, None), (BROKEN_GIF, None)):
        message.add_attachment(data, maintype="image", subtype="gif")
        if cid:
            message.get_payload()[-1]["Content-ID"] = cid
    [(record, _)] = read_all("m.eml", message.as_bytes())
    assert [(p.name, p.code, p.decoration) for p in record.unread] == [
        ("m.eml/part-1.bin", "unsupported_type", True),  # shown by the HTML body
        ("m.eml/part-2.bin", "unsupported_type", False),  # large, and not shown
        ("m.eml/part-3.bin", "unsupported_type", True),  # under the size of a logo
    ]
    assert "Not read: m.eml/part-1.bin, image/gif, 10 KB: unsupported_type (decoration)" in (
        record.text
    )


def test_an_outlook_inline_image_is_decoration_by_its_content_id() -> None:
    big = BROKEN_GIF + b"\x00" * DECORATION_IMAGE_BYTES
    msg = outlook_message(
        Outlook(
            {"0037": "Logo", "1000": "See below."},
            html=b'<p>See below.</p><img src="cid:image001.gif@01D">',
            files=[("image001.gif", big), ("photo.gif", big)],
            content_ids={"image001.gif": ("image001.gif@01D", "image/gif")},
        )
    )
    [(record, _)] = read_all("m.msg", msg)
    assert [(p.name, p.content_type, p.decoration) for p in record.unread] == [
        ("m.msg/image001.gif", "image/gif", True),
        ("m.msg/photo.gif", "application/octet-stream", False),
    ]


def test_an_html_file_is_read_as_the_text_it_shows() -> None:
    message = mail()
    html = "<html><body><p>Repairs&nbsp;&amp; parts:</p><table><tr><td>Pipe</td><td>120</td>"
    message.add_attachment(
        html + "</tr></table></body></html>", subtype="html", filename="att1.htm"
    )
    inner = mail("Quote below.")
    inner.add_attachment("<html><p>Labour &pound;80</p></html>", subtype="html")
    message.add_attachment(inner)
    files = {r.name: r for r, _ in read_all("m.eml", message.as_bytes())}
    assert files["m.eml/att1.htm"].pages[0].text == "Repairs & parts:\n\nPipe 120"
    assert files["m.eml/part-2.eml/part-1.html"].pages[0].text == "Labour £80"


@needs_tesseract
@pytest.mark.slow
def test_every_page_of_a_tiff_is_read(tmp_path: Path) -> None:
    name = "tika_multipage_text.tif"
    raw = shared_corpus_file(f"images/{name}").read_bytes()
    for record in (read_all(name, raw)[0].record, _intake(tmp_path, name, raw)[name]):
        assert record.kind == "image" and [p.number for p in record.pages] == [1, 2]
        assert "Page 1" in record.pages[0].text and "Page 2" in record.pages[1].text
        assert all("Multipage" in p.text and "TIFF" in p.text for p in record.pages)


@needs_tesseract
@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["WEBP", "BMP"])
def test_webp_and_bmp_are_read_by_ocr(fmt: str, tmp_path: Path) -> None:
    with Image.open(shared_corpus_file("images/tika_ocr_text.jpg")) as photo:
        # Three times its size: the JPEG is 136 pixels wide, small for OCR.
        bigger = photo.convert("RGB").resize((photo.width * 3, photo.height * 3))
    out = io.BytesIO()
    bigger.save(out, fmt, **({"lossless": True} if fmt == "WEBP" else {}))
    name = f"note.{fmt.lower()}"
    for record in (
        read_all(name, out.getvalue())[0].record,
        _intake(tmp_path, name, out.getvalue())[name],
    ):
        assert record.kind == "image" and record.pages[0].source == "ocr"
        assert "Apache Tika" in record.pages[0].text


@needs_tesseract
def test_a_photo_with_no_text_is_an_image_with_no_text() -> None:
    [(record, _)] = read_all(
        "cat.gif", shared_corpus_file("images/tika_photo_cat.gif").read_bytes()
    )
    assert (record.kind, record.problem, len(record.pages)) == ("image", None, 1)
    assert record.pages[0].source == "ocr" and record.text == ""
