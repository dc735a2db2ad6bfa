"""No reader raises past its attachment: a file that breaks a parser in a way nobody foresaw is
that attachment's `unreadable`, with the reason, and the rest of the inbox is taken in; through
the API such a file is a 422, never a 500. The two files first found to break the batch are here
as bytes: an e-mail whose text part names a codec that is no charset (`base64`, `rot13`,
`idna`), read now as UTF-8, and an Outlook .msg whose directory chains thousands of siblings,
which olefile walks recursively. And a form with more fields than pypdf parses in one array is
`too_large`, as a form over the cap is."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from claims_crew.api.app import ApiSettings
from claims_crew.cli import main
from claims_crew.documents import read
from claims_crew.documents.limits import ClaimBudget
from claims_crew.store import Store
from tests.support.attachments import INBOX
from tests.support.email_claim import HOSE_CLAIM, HOSE_EMAIL
from tests.support.forms import fields_array_pdf
from tests.support.mail import mail, read_all, refused
from tests.support.outlook import Outlook, sibling_chain

# More siblings than Python's default recursion limit lets olefile's tree walk reach.
CHAINED_SIBLINGS = 3_000
PIPE = Outlook({"0037": "Burst pipe", "0C1A": "Amara Okafor", "1000": "The pipe split."})
# The sample e-mail with its text body labelled with a codec that turns bytes into bytes.
BASE64_LABELLED = (
    (INBOX / HOSE_EMAIL)
    .read_bytes()
    .replace(
        b'Content-Type: text/plain; charset="utf-8"', b"Content-Type: text/plain; charset=base64"
    )
)


def test_the_sample_email_relabelled_is_the_file_the_tests_mean() -> None:
    assert BASE64_LABELLED.count(b"charset=base64") == 1


@pytest.mark.parametrize("charset", ["base64", "rot13", "idna", "hex", "zlib", "undefined"])
def test_a_text_part_naming_a_codec_that_is_no_charset_is_read_as_utf8(charset: str) -> None:
    message = mail("The pipe under the bath split at 7am.")
    message.replace_header("Content-Type", f"text/plain; charset={charset}")
    [email] = read_all("mail.eml", message.as_bytes())
    assert "The pipe under the bath split at 7am." in email.record.pages[0].text


def test_a_text_file_an_email_carries_in_such_a_charset_is_read_too() -> None:
    message = mail()
    message.add_attachment(b"Receipt: 120 GBP\n", maintype="text", subtype="plain",
                           filename="receipt.txt")  # fmt: skip
    data = message.as_bytes().replace(b'charset="utf-8"', b"charset=rot13")
    files = read_all("mail.eml", data)
    assert [r.name for r, _ in files] == ["mail.eml", "mail.eml/receipt.txt"]
    assert files[1].record.pages[0].text == "Receipt: 120 GBP\n"


@pytest.mark.parametrize("charset", ["idna", "undefined"])
def test_8bit_parts_and_file_names_in_a_charset_that_fails_are_read(charset: str) -> None:
    # The standard library decodes 8-bit bytes and RFC 2231 names in the charset given, and
    # passes on every codec error but LookupError.
    data = (
        "From: a@example.org\nTo: b@example.org\nSubject: Pipe\nMIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="b"\n\n'
        f'--b\nContent-Type: text/plain; charset="{charset}"\nContent-Transfer-Encoding: 8bit\n\n'
        "The pipe split \u2014 at 7am.\n"
        "--b\nContent-Type: text/plain\n"
        f"Content-Disposition: attachment; filename*={charset}''n%C3%A9\n\n"
        "Receipt: 120 GBP\n--b--\n"
    ).encode()
    files = read_all("mail.eml", data)
    assert [r.name for r, _ in files] == ["mail.eml", "mail.eml/part-1.txt"]
    assert "The pipe split \u2014 at 7am." in files[0].record.pages[0].text
    assert files[1].record.pages[0].text.strip() == "Receipt: 120 GBP"


def test_a_charset_with_a_nul_in_its_name_is_read_as_utf8() -> None:
    data = (
        b"From: a@example.org\nTo: b@example.org\nSubject: Pipe\n"
        b'Content-Type: text/plain; charset="utf-8\x00"\n\nThe pipe split.\n'
    )
    [email] = read_all("mail.eml", data)
    assert "The pipe split." in email.record.pages[0].text


def test_an_outlook_message_whose_directory_is_one_long_chain_is_unreadable() -> None:
    # The same chain, short, is a message like any other: the file is well formed.
    [short] = read_all("pipe.msg", sibling_chain(PIPE, 10))
    assert "The pipe split." in short.record.pages[0].text
    error = refused("pipe.msg", sibling_chain(PIPE, CHAINED_SIBLINGS))
    assert error.code == "unreadable" and "too deep" in str(error)


@pytest.mark.slow  # pypdf parses 100,001 fields in a reader child
def test_a_form_with_more_fields_than_pypdf_parses_in_one_array_is_too_large() -> None:
    # pypdf stops an array at 100,000 elements; the reader's own cap is far below.
    error = refused("form.pdf", fields_array_pdf(100_001))
    assert error.code == "too_large" and "form" in str(error)


@pytest.mark.parametrize("raised", [ValueError("a parser's bug"), RecursionError("deep")])
def test_any_other_failure_of_a_reader_is_that_attachment_s_unreadable(
    monkeypatch: pytest.MonkeyPatch, raised: Exception
) -> None:
    def broken(name: str, data: bytes) -> str:
        raise raised

    monkeypatch.setattr(read, "kind_of", broken)
    error = refused("note.txt", b"The pipe split.")
    assert error.code == "unreadable"
    assert str(error) == f"note.txt: could not be read ({type(raised).__name__}: {raised})"
    assert error.__cause__ is raised


@pytest.mark.parametrize("raised", [MemoryError(), KeyboardInterrupt(), SystemExit(3)])
def test_running_out_of_memory_or_being_stopped_is_never_called_unreadable(
    monkeypatch: pytest.MonkeyPatch, raised: BaseException
) -> None:
    def broken(name: str, data: bytes) -> str:
        raise raised

    monkeypatch.setattr(read, "kind_of", broken)
    with pytest.raises(type(raised)):
        read.read_document("note.txt", b"The pipe split.", ClaimBudget())


def _inbox(folder: Path) -> Path:
    """C-1043 as it is; C-1052 with its e-mail relabelled base64; C-1048 carrying the chained
    .msg instead of its plumber's note."""
    inbox = folder / "inbox"
    inbox.mkdir()
    shutil.copy(INBOX / "C-1043.json", inbox)
    shutil.copy(INBOX / "C-1043-plumber.txt", inbox)
    shutil.copy(HOSE_CLAIM, inbox)
    (inbox / HOSE_EMAIL).write_bytes(BASE64_LABELLED)
    chained = json.loads((INBOX / "C-1048.json").read_text(encoding="utf-8"))
    chained["attachments"] = ["pipe.msg"]
    (inbox / "C-1048.json").write_text(json.dumps(chained), encoding="utf-8")
    (inbox / "pipe.msg").write_bytes(sibling_chain(PIPE, CHAINED_SIBLINGS))
    return inbox


@pytest.mark.slow  # the command line, and the e-mail's PDF read in a child
@pytest.mark.usefixtures("engine")
def test_ingest_takes_in_the_inbox_around_an_attachment_no_reader_can_read(
    tmp_path: Path,
) -> None:
    inbox = _inbox(tmp_path)
    result = CliRunner().invoke(main, ["ingest", str(inbox), "--json"])
    assert result.exit_code == 1, result.output
    files = {f["claim_id"] or f["file"]: f for f in json.loads(result.output)["files"]}
    assert files["C-1043"]["state"] == files["C-1052"]["state"] == "queued"
    refusal = files["C-1048.json"]
    assert (refusal["state"], refusal["code"]) == (None, "unreadable")
    assert "attachment pipe.msg" in refusal["error"] and "too deep" in refusal["error"]
    store = Store()
    assert store.queue_counts().pending == 2
    kept = store.loaded("C-1052", hashlib.sha256((inbox / "C-1052.json").read_bytes()).hexdigest())
    assert kept is not None
    assert "Dear claims team," in kept.documents[HOSE_EMAIL].pages[0].text


@pytest.fixture
def store(engine: str) -> Iterator[Store]:
    opened = Store()
    yield opened
    opened.close()


def test_the_api_answers_422_for_such_an_attachment_and_202_for_the_relabelled_email(
    store: Store, tmp_path: Path
) -> None:
    from claims_crew.review.web import create_app

    api = TestClient(create_app(store, ["testserver"], api=ApiSettings()))
    auth = {"Authorization": f"Bearer {store.add_client('core', ['submit', 'read'], 'ops')}"}
    inbox = _inbox(tmp_path)

    def sent(claim: str, attachment: str) -> list[object]:
        return [
            ("claim", (claim, (inbox / claim).read_bytes())),
            ("attachments", (attachment, (inbox / attachment).read_bytes())),
        ]

    chained = api.post("/api/v1/claims", files=sent("C-1048.json", "pipe.msg"), headers=auth)
    assert chained.status_code == 422, chained.text
    assert chained.json()["code"] == "unreadable" and "too deep" in chained.json()["detail"]
    assert store.queue_counts().pending == 0
    email = api.post("/api/v1/claims", files=sent("C-1052.json", HOSE_EMAIL), headers=auth)
    assert email.status_code == 202, email.text
    assert store.queue_counts().pending == 1
