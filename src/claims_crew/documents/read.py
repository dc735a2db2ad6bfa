"""One attachment's bytes into its text of record: plain text, a PDF (its text layer and its
filled form fields, OCR for the pages that have none), a photo (OCR, HEIC included), a Word
document or a spreadsheet (office/read.py), or an e-mail (mail/read.py), whose attachments are
read here in turn and become records of their own. Each kind's readers and their children live
in a room of their own (pdf/, mail/, office/, images/); this module is the one way in.

The kind is told from the bytes, not the name: a `.pdf` that is a PNG is read as a PNG, and a
file that is none of the kinds read is refused as unsupported_type rather than guessed at. A
PDF's text layer comes from the reader child that policy wordings are read by too (pdf/text.py),
with its time limit; its scanned pages and photos go through OCR (images/ocr.py). Where no OCR
engine is installed, the pages that need one are left unread and the record says needs_ocr, with
the install line: the claim goes on with what could be read.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

from claims_crew.documents.child_process import timeout_from_env
from claims_crew.documents.images.ocr import ocr_unavailable
from claims_crew.documents.images.pages import image_frames, ocr_page
from claims_crew.documents.limits import (
    MAX_DOCUMENT_BYTES,
    MAX_TEXT_BYTES,
    OCR_OVER_TEXT_LAYER_CONFIDENCE,
    AttachmentError,
    ClaimBudget,
)
from claims_crew.documents.mail.read import (
    TNEF_MAGIC,
    html_text,
    is_outlook_message,
    looks_like_message,
    read_message,
)
from claims_crew.documents.office.read import office_kind, office_pages, refuse_encrypted_office
from claims_crew.documents.pdf.pages import rendered_pdf_pages
from claims_crew.documents.pdf.text import (
    MIN_LETTERS_PER_PAGE,
    PdfTextError,
    PdfTextProblem,
    read_pdf_layer,
)
from claims_crew.documents.record import (
    AttachmentKind,
    AttachmentRecord,
    PageText,
    ReadFile,
    UnreadPart,
)
from claims_crew.errors import ClaimsCrewError
from claims_crew.vocabulary import ClaimFileProblem

_PDF_CODES: dict[PdfTextProblem, ClaimFileProblem] = {
    "encrypted": "encrypted",
    "timeout": "ocr_failed",
}
# The line that sets a page's filled form fields apart from its own text.
FORM_FIELDS_MARKER = "Form fields:"
# An XFA form's datasets packet, as a part of its PDF not read (its name under the PDF's).
XFA_PART, XFA_TYPE = "xfa", "application/vnd.adobe.xfa+xml"
_WORD = re.compile(r"\w+")
# PNG, JPEG, TIFF (either byte order) and GIF (both versions): every image a mail client sends,
# with BMP and WebP (_is_bmp, _is_webp), whose signatures are too short to tell alone.
_IMAGE_MAGIC = (
    b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*", b"GIF87a", b"GIF89a"
)  # fmt: skip
# The sizes of a BMP's info header, by version (BITMAPCOREHEADER to BITMAPV5HEADER).
_BMP_HEADERS = frozenset({12, 40, 52, 56, 64, 108, 124})
# An HTML file, by its name or its first tag: read as the text it shows, as an HTML body is.
_HTML_SUFFIXES = (".htm", ".html", ".xhtml")
_HTML_STARTS = ("<!doctype html", "<html", "<?xml version")
# ISO base media brands of HEIC/HEIF photos (an iPhone's default).
_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"heim", b"heis", b"mif1", b"msf1")
_ZIP_MAGIC = b"PK\x03\x04"
# An OLE compound file: an Outlook .msg, or an old Word or Excel file (not read).
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MESSAGE_HEAD = 64 << 10
# How much of an unforeseen failure's message an unreadable attachment's reason quotes.
_REASON_CHARS = 300
_KINDS_READ = (
    "UTF-8 text, an e-mail, a PDF, a Word or Excel file, or a PNG, JPEG, GIF, BMP, TIFF, WebP "
    "or HEIC image"
)


def kind_of(name: str, data: bytes) -> AttachmentKind:
    """What the bytes are; AttachmentError unsupported_type when none of the kinds read."""
    # An OLE file's first sectors may hold a PDF it carries: its own signature comes first.
    if b"%PDF-" in data[:1024] and not data.startswith(_OLE_MAGIC):
        return "pdf"
    if data.startswith(_IMAGE_MAGIC) or (data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS):
        return "image"
    if _is_bmp(data) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
        return "image"
    if data.startswith(TNEF_MAGIC):
        return "email"  # a winmail.dat: a message of its own (mail/tnef.py)
    if data.startswith(_ZIP_MAGIC):
        return office_kind(name, data)
    if data.startswith(_OLE_MAGIC):
        if is_outlook_message(name, data):
            return "email"
        refuse_encrypted_office(name, data)
        raise AttachmentError(
            "unsupported_type",
            f"{name}: an old-format Office file (.doc or .xls); save it as .docx or .xlsx",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # An e-mail's 8-bit body is in whatever charset it names; its header block is ASCII.
        if looks_like_message(data[:_MESSAGE_HEAD].decode("latin-1")):
            return "email"
        raise AttachmentError("unsupported_type", f"{name}: not {_KINDS_READ}") from exc
    return "email" if looks_like_message(text) else "text"


def _is_bmp(data: bytes) -> bool:
    """A Windows bitmap: "BM", then an info header of a size one of its versions has; two
    letters alone would take a note that starts "BMW" for a picture."""
    return data[:2] == b"BM" and int.from_bytes(data[14:18], "little") in _BMP_HEADERS


def _is_html(name: str, text: str) -> bool:
    if name.lower().endswith(_HTML_SUFFIXES):
        return True
    head = text.lstrip("\ufeff \t\r\n")[:200].lower()
    return head.startswith(_HTML_STARTS) and "<html" in head


def read_attachment(name: str, data: bytes, budget: ClaimBudget) -> AttachmentRecord:
    """The text of record of the attachment `name`, whose bytes are `data`; for an e-mail, its
    own record alone (read_document gives the records of what it carries too).

    Raises AttachmentError: too_large, too_deep, encrypted, unsupported_type or ocr_failed.
    """
    return read_document(name, data, budget)[0].record


def read_document(name: str, data: bytes, budget: ClaimBudget, depth: int = 0) -> list[ReadFile]:
    """The record of `name` with its bytes, then, for an e-mail, those of the files it carries,
    in order, each named under it ("message.eml/report.pdf"), so that each original can be kept.
    `depth`: how many e-mails this one is inside.

    Raises AttachmentError: too_large, too_deep, encrypted, unsupported_type, ocr_failed, or
    unreadable for any failure of a reader that is not one of these; nothing else but what is
    no fault of the file (below). This is the one place every attachment, and every file an
    e-mail carries, is read through, so the one place that says so.
    """
    try:
        return _read_document(name, data, budget, depth)
    except (AttachmentError, ClaimsCrewError):
        raise  # the file's own code, or a bad setting or store, which is no fault of the file
    except MemoryError:
        # This process is short of memory (the readers that could ask for much run in children
        # under a cap of their own): the batch must stop and say so, not blame the file.
        raise
    except Exception as exc:
        # The parsers here (the e-mail package, olefile, Pillow, pypdf's parent side) are fed
        # outside bytes and raise their own types on input their authors never met (a
        # LookupError for a charset, a RecursionError for a deep directory, struct.error, ...):
        # such a file is that attachment's unreadable, and the claims beside it go on.
        # KeyboardInterrupt and SystemExit are BaseException, not Exception: a stop is a stop.
        raise AttachmentError(
            "unreadable", f"{name}: could not be read ({type(exc).__name__}: {_reason(exc)})"
        ) from exc


def _reason(exc: Exception) -> str:
    """The exception's message on one line, cut short: some parsers quote the bytes they met."""
    text = " ".join(str(exc).split())
    return text if len(text) <= _REASON_CHARS else text[:_REASON_CHARS] + " …"


def _read_document(name: str, data: bytes, budget: ClaimBudget, depth: int) -> list[ReadFile]:
    started = time.monotonic()
    kind = kind_of(name, data)
    cap = MAX_TEXT_BYTES if kind == "text" else MAX_DOCUMENT_BYTES
    if len(data) > cap:
        raise AttachmentError(
            "too_large", f"{name} is {len(data):,} bytes; the cap is {cap:,} bytes"
        )
    if kind == "email":
        # The message's own record first, then each carried file read as an attachment is.
        return read_message(name, data, budget, depth, read_document)
    problem: str | None = None
    unread: list[UnreadPart] = []
    if kind == "text":
        text = data.decode("utf-8")
        # A carried .htm (or a forwarded text/html part) is read as what it shows on screen.
        pages = [PageText(number=1, text=html_text(text) if _is_html(name, text) else text)]
    elif kind == "pdf":
        pages, problem, unread = _pdf_pages(name, data, budget)
    elif kind in ("docx", "xlsx"):
        pages, unread = office_pages(name, data, kind, budget)
    else:
        pages, problem = _image_pages(name, data, budget)
    record = AttachmentRecord(
        name=name,
        kind=kind,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        pages=pages,
        problem="needs_ocr" if problem else None,
        message=problem or "",
        seconds=round(time.monotonic() - started, 3),
        unread=unread,
    )
    return [ReadFile(record, data)]


def _pdf_pages(
    name: str, data: bytes, budget: ClaimBudget
) -> tuple[list[PageText], str | None, list[UnreadPart]]:
    limit = timeout_from_env()
    left = budget.time_for(name)
    try:
        layer, fields, refused, xfa_unread = read_pdf_layer(
            Path(name), data, limit if left is None else min(limit, left)
        )
    except PdfTextError as exc:
        # A broken PDF is unreadable, as a broken claim file is; one that outlasts the time
        # limit is refused with the OCR failures, which share that limit.
        code: ClaimFileProblem = _PDF_CODES.get(exc.code, "unreadable")
        raise AttachmentError(code, str(exc)) from exc
    if refused:
        raise AttachmentError("too_large", refused)
    budget.take_pages(name, len(layer))
    pages = {n: PageText(number=n, text=text) for n, text in enumerate(layer, start=1)}
    # A page is scanned by its text layer alone: a form's printed labels are a text layer, and
    # its filled values, which are not, never spare a scanned page its OCR.
    scanned = [n for n, page in pages.items() if _letters(page.text) < MIN_LETTERS_PER_PAGE]
    problem = None
    if scanned and (install := ocr_unavailable()):
        listed = ", ".join(map(str, scanned))
        which = f"pages {listed} have" if len(scanned) > 1 else f"page {listed} has"
        problem = f"{which} no text layer; for OCR: {install}"
    else:
        for number, image in rendered_pdf_pages(name, data, scanned, budget):
            read = ocr_page(name, number, image, budget)
            if ocr_reads_better(read, pages[number].text):
                pages[number] = read
    # A form's XFA packet not read is named on the record and in its first page's text.
    unread = [
        UnreadPart(
            name=f"{name}/{XFA_PART}",
            content_type=XFA_TYPE,
            size=note.size,
            code="unreadable",
            reason=note.reason,
        )
        for note in xfa_unread
    ]
    notes = [[part.line() for part in unread]] + [[] for _ in range(len(pages) - 1)]
    records = [
        _with_fields(page, fields[page.number - 1] + notes[page.number - 1])
        for page in pages.values()
    ]
    return records, problem, unread


def ocr_reads_better(ocr: PageText, layer: str) -> bool:
    """Whether a page's OCR text is to replace its short text layer: always for a layer without
    a word, else only when OCR reads more words on lines it is sure of (limits.py says how sure)
    than the layer holds."""
    held = len(_WORD.findall(layer))
    if held == 0:
        return True
    sure = sum(
        len(_WORD.findall(line.text))
        for line in ocr.lines
        if line.confidence >= OCR_OVER_TEXT_LAYER_CONFIDENCE
    )
    return sure > held


def _with_fields(page: PageText, lines: list[str]) -> PageText:
    """The page with its filled form fields after its own text, under FORM_FIELDS_MARKER; a
    blank line between fields, so that each is a statement of its own when a quote is checked
    (a quote may not run from one field into the next)."""
    if not lines:
        return page
    text = "\n\n".join(part for part in (page.text.rstrip(), FORM_FIELDS_MARKER, *lines) if part)
    return page.model_copy(update={"text": text})


def _image_pages(name: str, data: bytes, budget: ClaimBudget) -> tuple[list[PageText], str | None]:
    if install := ocr_unavailable():
        return [], f"a picture, read only by OCR: {install}"
    return [ocr_page(name, n, image, budget) for n, image in image_frames(name, data, budget)], None


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)
