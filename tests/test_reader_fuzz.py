"""Every reader, fed damaged files: the sample attachments the repository holds (and e-mails,
Outlook messages, a workbook and small pictures made here) with bits flipped, cut short, bytes
spliced in, another kind's signature at the start, a stretch repeated; e-mails with odd
charsets in their headers and parts and nested deep; Outlook messages nested and with chained
directories. The property: the attachment is read into records, or refused with an
AttachmentError whose code is one the claim file's refusal may carry, never anything else. The
time and memory caps are the readers' own (each child's limits; the size caps before a parser
runs), so a case that outlasted them would show as a refusal, never as a hang here.

CI runs a fixed set (derandomized, no example database), a few hundred cases, most on the
readers that parse in this process and few on those that start a child per file (PDF, Office).
CLAIMS_CREW_FUZZ_EXAMPLES=N runs N cases a reader (a tenth of N for PDF and Office), at random,
for a search on demand (docs/development.md)."""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable, Iterator
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from claims_crew.documents.limits import AttachmentError, ClaimBudget
from claims_crew.documents.read import read_document
from claims_crew.vocabulary import ClaimFileProblem
from tests.support.attachments import INBOX
from tests.support.fuzz import (
    blank_tesseract,
    damaged,
    examples,
    odd_emails,
    odd_outlook,
    on_demand,
)
from tests.support.office import workbook
from tests.support.outlook import Outlook, outlook_message

CODES = frozenset(get_args(ClaimFileProblem))
# Pillow warns of the damage it reads past (corrupt EXIF, a truncated frame): expected here.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")


def _fuzz(ci: int, in_child: bool = False) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Hypothesis's settings for one reader: `ci` examples in CI, reproducibly."""
    return settings(
        max_examples=examples(ci, in_child),
        derandomize=not on_demand(),
        database=None,
        deadline=None,  # the tests never time things; the readers hold their own limits
        # Each example reads in the test's private home (an autouse fixture), left as it is.
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        print_blob=True,
    )


@pytest.fixture(scope="module", autouse=True)
def _blank_ocr(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Pictures and scanned pages decoded and drawn as for OCR, read by a stand-in engine."""
    program = blank_tesseract(tmp_path_factory.mktemp("ocr"))
    before = os.environ.get("CLAIMS_CREW_TESSERACT")
    os.environ["CLAIMS_CREW_TESSERACT"] = str(program)
    yield
    if before is None:
        del os.environ["CLAIMS_CREW_TESSERACT"]
    else:
        os.environ["CLAIMS_CREW_TESSERACT"] = before


def reads_or_refuses(name: str, data: bytes) -> None:
    """The property: records for `name` and what it carries, or an AttachmentError with a code."""
    try:
        files = read_document(name, data, ClaimBudget())
    except AttachmentError as exc:
        assert exc.code in CODES, exc.code
        assert str(exc).strip()
        return
    assert files and files[0].record.name == name
    for record, original in files:
        assert record.name == name or record.name.startswith(name + "/")
        assert record.sha256 == hashlib.sha256(original).hexdigest()


def _small_picture(kind: str) -> bytes:
    """A sample photo made small, so that a damaged copy decodes in milliseconds."""
    source = INBOX / "C-2002-estimate.jpg"
    with Image.open(source) as photo:
        photo.thumbnail((96, 96))
        out = io.BytesIO()
        photo.convert("RGB").save(out, format=kind)
    return out.getvalue()


def _without_pdf(eml: bytes) -> bytes:
    """The sample e-mail without the PDF it carries: each PDF is read in a child process."""
    message = BytesParser(policy=policy.default).parsebytes(eml)
    parts = message.get_payload()
    assert isinstance(parts, list)
    message.set_payload([part for part in parts if part.get_content_type() != "application/pdf"])
    return message.as_bytes()


TEXTS = sorted(INBOX.glob("*.txt"))
EMAIL = (INBOX / "C-1052-email.eml").read_bytes()
EMAIL_TEXT = _without_pdf(EMAIL)
OUTLOOK = outlook_message(
    Outlook(
        {"0037": "Burst pipe", "0C1A": "Amara Okafor", "1000": "The pipe split at 7am."},
        files=[("note.txt", b"The plumber came at 9.")],
        messages=[("first.msg", Outlook({"0037": "Fwd", "1000": "Forwarded."}))],
    )
)
PICTURES = {kind: _small_picture(kind) for kind in ("PNG", "JPEG", "TIFF")}
HEIC = (INBOX / "C-2004-estimate.heic").read_bytes()
WORKBOOK = workbook({"Estimate": [["Item", "Cost"], ["Tiles", 1710]]})
WORD = (INBOX / "C-2003-statement.docx").read_bytes()
PDFS = {p.name: p.read_bytes() for p in sorted(INBOX.glob("*.pdf"))}


@_fuzz(ci=150)
@given(seed=st.sampled_from(TEXTS), data=st.data())
def test_text_notes_damaged(seed: Path, data: st.DataObject) -> None:
    reads_or_refuses(seed.name, data.draw(damaged(seed.read_bytes())))


@pytest.mark.slow  # hundreds of e-mails, some nested tens of levels deep
@_fuzz(ci=200)
@given(data=st.one_of(damaged(EMAIL_TEXT), odd_emails(), odd_emails().flatmap(damaged)))
def test_emails_damaged_with_odd_charsets_and_deep_nesting(data: bytes) -> None:
    reads_or_refuses("mail.eml", data)


@pytest.mark.slow  # the PDF the sample e-mail carries is read in a child
@_fuzz(ci=8, in_child=True)
@given(data=damaged(EMAIL))
def test_the_sample_email_with_its_pdf_damaged(data: bytes) -> None:
    reads_or_refuses("mail.eml", data)


@pytest.mark.slow  # a compound file of thousands of entries written for some
@_fuzz(ci=150)
@given(data=st.one_of(damaged(OUTLOOK), odd_outlook(), odd_outlook().flatmap(damaged)))
def test_outlook_messages_damaged_nested_and_chained(data: bytes) -> None:
    reads_or_refuses("mail.msg", data)


@_fuzz(ci=150)
@given(kind=st.sampled_from(sorted(PICTURES)), data=st.data())
def test_pictures_damaged(kind: str, data: st.DataObject) -> None:
    reads_or_refuses(f"photo.{kind.lower()}", data.draw(damaged(PICTURES[kind])))


@pytest.mark.slow  # a HEIC photo decoded whole by libheif
@_fuzz(ci=10)
@given(data=damaged(HEIC))
def test_heic_photos_damaged(data: bytes) -> None:
    reads_or_refuses("photo.heic", data)


@pytest.mark.slow  # an Office file whose zip directory holds is read in a child
@_fuzz(ci=12, in_child=True)
@given(seed=st.sampled_from(("statement.docx", "estimate.xlsx")), data=st.data())
def test_office_files_damaged(seed: str, data: st.DataObject) -> None:
    original = WORD if seed.endswith(".docx") else WORKBOOK
    reads_or_refuses(seed, data.draw(damaged(original)))


@pytest.mark.slow  # a PDF is read in a child per file, its scanned pages drawn in another
@_fuzz(ci=12, in_child=True)
@given(seed=st.sampled_from(sorted(PDFS)), data=st.data())
def test_pdfs_damaged(seed: str, data: st.DataObject) -> None:
    reads_or_refuses(seed, data.draw(damaged(PDFS[seed])))
