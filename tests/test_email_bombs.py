"""E-mail bombs: nested e-mails followed to a fixed depth, and every cap (depth, files one
message and a claim carry, decoded sizes) checked before the part it concerns is decoded; a
refused e-mail refuses its claim with a code while the rest of the inbox is reviewed."""

from __future__ import annotations

import base64
import json
import shutil
from email.message import Message
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.documents import limits
from claims_crew.documents.limits import MAX_EMAIL_DEPTH, ClaimBudget
from claims_crew.documents.mail import mime as email_mime
from claims_crew.store import Store
from tests.support.attachments import INBOX
from tests.support.crew import script_any_claim_run, table_row
from tests.support.email_claim import HOSE_CLAIM, HOSE_EMAIL
from tests.support.mail import UNREADABLE, forwarded, mail, read_all, refused


def test_forwarded_emails_are_followed_to_the_fixed_depth() -> None:
    files = read_all("chain.eml", forwarded(MAX_EMAIL_DEPTH, mail("The original.")))
    assert [r.name for r, _ in files][-1] == "chain.eml" + "/part-1.eml" * MAX_EMAIL_DEPTH
    assert "The original." in files[-1].record.pages[0].text


def test_emails_nested_deeper_are_refused_before_any_part_is_read() -> None:
    innermost = mail("Too deep.")
    innermost.add_attachment(UNREADABLE, maintype="application", subtype="octet-stream")
    error = refused("chain.eml", forwarded(MAX_EMAIL_DEPTH + 1, innermost))
    # Not unsupported_type: the unreadable file at the bottom was never reached.
    assert error.code == "too_deep" and f"followed {MAX_EMAIL_DEPTH} deep" in str(error)
    # Four hundred deep, written out here: the standard library's writer recurses per level.
    head = "From: a@example.org\nTo: b@example.org\nSubject: Fwd\nContent-Type: message/rfc822\n\n"
    deep = (head * 400 + "From: a@example.org\nTo: b@example.org\n\nHi\n").encode()
    assert refused("deep.eml", deep).code == "too_deep"


def test_an_eml_file_attached_as_bytes_is_followed_and_held_to_the_depth() -> None:
    message = mail("The original.")
    for _ in range(MAX_EMAIL_DEPTH + 1):
        outer = mail("See the attached e-mail.")
        outer.add_attachment(message.as_bytes(), maintype="application",
                             subtype="octet-stream", filename="forwarded.eml")  # fmt: skip
        message = outer
    assert refused("chain.eml", message.as_bytes()).code == "too_deep"


def test_many_files_in_one_email_are_refused_before_any_is_read() -> None:
    message = mail()
    for number in range(limits.MAX_MESSAGE_FILES + 1):
        message.add_attachment(UNREADABLE, maintype="application", subtype="octet-stream",
                               filename=f"file-{number}.bin")  # fmt: skip
    error = refused("many.eml", message.as_bytes())
    assert error.code == "too_large" and f"carries {limits.MAX_MESSAGE_FILES + 1} files" in str(
        error
    )


def test_the_files_a_claim_s_emails_carry_are_counted_together() -> None:
    message = mail()
    for number in range(limits.MAX_MESSAGE_FILES):
        message.add_attachment(f"Line {number}\n".encode(), maintype="text", subtype="plain",
                               filename=f"note-{number}.txt")  # fmt: skip
    budget = ClaimBudget()
    for number in range(limits.MAX_CLAIM_CARRIED_FILES // limits.MAX_MESSAGE_FILES):
        assert len(read_all(f"mail-{number}.eml", message.as_bytes(), budget)) == 21
    error = refused("one-more.eml", message.as_bytes(), budget)
    assert error.code == "too_large" and "carry more than" in str(error)


def test_a_huge_decoded_part_is_refused_from_its_encoded_length(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded = email_mime._decoded

    def never(part: Message) -> bytes:
        assert email_mime.decoded_size(part) < 1 << 20, "a part over the cap was decoded"
        return decoded(part)

    # A body of 1.5 MB under base64: its decoded size is known from its encoded length.
    message = mail()
    message.set_content(b"x" * (3 << 19), maintype="text", subtype="plain", cte="base64")
    monkeypatch.setattr(email_mime, "_decoded", never)
    error = refused("huge.eml", message.as_bytes())
    assert error.code == "too_large" and "its body is 1,572,864 bytes decoded" in str(error)
    # A carried file over the cap of one document (lowered, so that the test stays small): set
    # aside undecoded as a part not read, the message kept.
    monkeypatch.setattr(limits, "MAX_DOCUMENT_BYTES", 1 << 20)
    message = mail()
    message.add_attachment(b"\0" * (3 << 19), maintype="application", subtype="octet-stream",
                           filename="big.bin")  # fmt: skip
    [(record, _)] = read_all("huge.eml", message.as_bytes())
    [part] = record.unread
    assert (part.name, part.code, part.size) == ("huge.eml/big.bin", "too_large", 3 << 19)
    assert "big.bin is 1,572,864 bytes decoded" in part.reason


def test_a_carried_file_no_reader_takes_is_named_on_the_claim_s_email(tmp_path: Path) -> None:
    message = mail()
    message.add_attachment(UNREADABLE, maintype="application", subtype="octet-stream",
                           filename="winmail.dat")  # fmt: skip
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "mail.eml").write_bytes(message.as_bytes())
    fields = json.loads(HOSE_CLAIM.read_text(encoding="utf-8"))
    path = inbox / "C-1052.json"
    path.write_text(json.dumps({**fields, "attachments": ["mail.eml"]}), encoding="utf-8")
    # Once it refused the claim; the e-mail is kept now, the file it carries named as not read.
    [record] = load_claim(path).documents.values()
    [part] = record.unread
    assert (part.name, part.code, part.size) == ("mail.eml/winmail.dat", "unsupported_type", 256)
    assert "Not read: mail.eml/winmail.dat, application/octet-stream, 256 bytes: " in record.text
    assert "The pipe under the bath split." in record.text


def test_base64_payload_size_is_worked_out_before_decoding() -> None:
    message = mail()
    data = bytes(range(256)) * 40
    message.add_attachment(data, maintype="application", subtype="octet-stream")
    [part] = message.iter_attachments()
    assert part["Content-Transfer-Encoding"] == "base64"
    assert len(str(part.get_payload())) > len(base64.b64encode(data))  # line breaks too
    assert email_mime.decoded_size(part) == len(data)


def _bombs(inbox: Path) -> dict[str, str]:
    """A claim for each e-mail bomb; returns file name → the code the run must give."""
    fields = json.loads(HOSE_CLAIM.read_text(encoding="utf-8"))
    many = mail()
    for number in range(limits.MAX_MESSAGE_FILES + 1):
        many.add_attachment(UNREADABLE, maintype="application", subtype="octet-stream",
                            filename=f"file-{number}.bin")  # fmt: skip
    huge = mail()
    huge.set_content(b"x" * (3 << 19), maintype="text", subtype="plain", cte="base64")
    bombs = {
        "X-mail-deep": (forwarded(MAX_EMAIL_DEPTH + 1, mail()), "too_deep"),
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
    script_any_claim_run(monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in (HOSE_CLAIM.name, HOSE_EMAIL):
        shutil.copy(INBOX / name, inbox)
    bad = _bombs(inbox)
    result = CliRunner().invoke(main, ["run", "--inbox", str(inbox)], env={"COLUMNS": "400"})
    assert result.exit_code == 1, result.output
    for name, code in bad.items():
        row = table_row(result.output, name)
        assert f"bad claim file ({code})" in row, row
    record = Store().claim_record("C-1052")
    assert record is not None and record.status == "reviewed"
    assert f"{len(bad)} claim(s) failed" in result.output
