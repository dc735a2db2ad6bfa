"""What one claim's attachments may cost to read: bytes, pages, pixels and seconds.

An attachment is outside input, and an image or a PDF can ask for far more than its size: a
40 kB PNG may declare 100,000 × 100,000 pixels, a one-page PDF a page 200 inches wide. Every
cap is checked on what the file declares, before anything is decoded or rendered, and the
whole claim shares one budget, so that fifty small scans cannot do what one large one may not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from claims_crew.vocabulary import ClaimFileProblem

# A plain-text attachment (a note, an email) is read whole into the intake agent's prompt.
MAX_TEXT_BYTES = 256 << 10
# A PDF or a photo: a phone picture is a few MB, a scanned report of a few pages as much again.
MAX_DOCUMENT_BYTES = 20 << 20
MAX_CLAIM_ATTACHMENT_BYTES = 48 << 20
MAX_PAGES = 40  # of one PDF or multi-page TIFF
MAX_CLAIM_PAGES = 100
# A fillable PDF's form (documents/pdf/form_fields.py): an ACORD loss notice has a few hundred
# fields, a body-shop estimate fewer. Past the count the form is refused as too_large before any
# value is read; a value longer than a long loss description is cut, and says so, rather than
# refusing the claim for one overfull box; all filled lines together may hold no more than a
# plain-text attachment may.
MAX_FORM_FIELDS = 1000
MAX_FORM_FIELD_CHARS = 2000
MAX_FORM_TEXT_CHARS = MAX_TEXT_BYTES
# A PDF page whose text layer is short (pdf/text.py's MIN_LETTERS_PER_PAGE) is read by OCR as
# well, as a scan with a stamp on it would be; but its layer is what the file itself says, exact
# where OCR guesses ("OUTER 1" is read "OUTER |"). OCR's text replaces the layer only when it
# holds more words, counting those on lines Tesseract is at least this sure of, than the layer
# does. 0.80 is where an OCR line is shown as low-confidence (record.LOW_CONFIDENCE): words the
# engine doubts never displace the file's own. A layer with no words at all is always replaced.
OCR_OVER_TEXT_LAYER_CONFIDENCE = 0.80
# A 300-dpi A4 page is 8.7 million pixels, a 48-megapixel phone photo 48 million. An image or
# page over this is refused from its header, before it is decoded, as a decompression bomb
# would be: when a claim's attachment is read, when a photo is shown to the model
# (crew/images.py), and when a page is drawn for a reviewer (review/page_image.py).
MAX_PIXELS = 64_000_000
MAX_CLAIM_PIXELS = 600_000_000
OCR_DPI = 300
# An e-mail is a container: each file it carries is read as an attachment is, and each cap is
# checked on what the message declares, before a part is decoded. A claim's e-mail rarely
# carries more than a handful of files; a forwarded chain is rarely more than three deep.
MAX_EMAIL_DEPTH = 3  # e-mails inside an e-mail inside the claim's own
MAX_MIME_NESTING = 16  # multipart inside multipart, within one message
MAX_MESSAGE_FILES = 20  # files one e-mail carries
MAX_CLAIM_CARRIED_FILES = 50  # files all of a claim's e-mails carry together
MAX_CLAIM_CARRIED_BYTES = MAX_CLAIM_ATTACHMENT_BYTES  # their decoded bytes together
# An e-mail's body, decoded: HTML holds several times its text in markup.
MAX_BODY_BYTES = 4 * MAX_TEXT_BYTES
# What a carried file that cannot be read costs its claim (documents/mail/read.py). An e-mail,
# an Outlook .msg, a forwarded message or a winmail.dat keeps every record it could read, and a
# part it carries that cannot be read becomes an unread part of the outermost e-mail's record:
# a type no reader takes, a damaged file, an encrypted one, a page OCR failed on, and a file
# over the caps of one document (its decoded bytes, its pages, its pixels), which are all
# checked before that file is decoded, so nothing was spent on it. Refusals of the whole claim
# stay where the service is guarded: the claim's one budget (ClaimBudgetSpent: its pages,
# pixels, deadline, and the count and bytes of all carried files), e-mails nested past
# MAX_EMAIL_DEPTH or MIME past MAX_MIME_NESTING, more than MAX_MESSAGE_FILES files in the
# claim's own e-mail, and that e-mail's own body over MAX_BODY_BYTES.
# An unread image is decoration, listed but no reason to stop a decision, when the HTML body
# shows it by Content-ID or when it is under this size: a signature's logo or a social icon is
# 1 to 10 KB, while a photo of damage or a scan a person would read is tens of KB at the least
# (a phone photo is megabytes).
DECORATION_IMAGE_BYTES = 10 << 10
# Drawing one PDF page, in its own child process (documents/pdf/rendering.py): its address space and
# its time. A normal page needs far less: the child starts at about 45 MiB, and a 300-dpi A4
# scan drawn for OCR peaks near 110 MiB; the largest page the pixel cap lets through (64
# megapixels) needs a 64 MB grey bitmap plus pdfium's own copy of the page's image. 1 GiB is
# several times that, and small enough that a few claims drawing at once cannot take a
# worker's memory. A page that draws a tree of Form XObjects grows by hundreds of MB a second
# and reaches the cap within a few seconds, where it would otherwise take tens of GB.
RENDER_MEMORY_BYTES = 1 << 30
# A Word file or a spreadsheet is a zip of XML parts, and a zip says in its central directory how
# large each part is before any is inflated: those declared sizes are checked first, so that a
# zip bomb dressed as .docx or .xlsx is refused before a byte is decompressed. A real .docx has
# 10 to 30 parts, an .xlsx a few per sheet, a few hundred with pictures; its XML inflates 5 to 20
# times (a sheet of repeated styles up to about 50), deflate itself at most about 1,000 times.
# A part larger than 32 MiB of XML is no note or estimate (a 300-page report is about 10 MiB),
# and python-docx holds every part in memory, so the total stays well inside the reader's 1 GiB
# address space (RENDER_MEMORY_BYTES, which the Office reader child runs under too).
MAX_ZIP_ENTRIES = 1_000
MAX_ZIP_ENTRY_BYTES = 32 << 20
MAX_ZIP_TOTAL_BYTES = 128 << 20
MAX_ZIP_RATIO = 100
# The ratio is not checked below this declared size: a short run of blanks compresses far past
# any ratio and costs nothing to inflate, and so does a vector preview: a real Word file with an
# embedded PDF (Apache Tika's testWORD_embedded_pdf.docx, in ../shared/corpus/office/) carries a
# 1.4 MB EMF picture that deflates 129 times. Below 8 MiB a part costs nothing to hold either way.
ZIP_RATIO_FROM_BYTES = 8 << 20
# A spreadsheet: its sheets are its pages (MAX_PAGES), and its text goes to the intake agent
# whole, so rows and cells are capped as a text attachment's bytes are. An estimate or a list of
# items is tens to hundreds of rows; past these the workbook is refused as too_large rather than
# read in part, as a PDF over its pages is: a claim reviewed on half a ledger would not say so.
MAX_SHEET_ROWS = 5_000  # rows holding a value, in one sheet
MAX_WORKBOOK_CELLS = 50_000  # cells holding a value, in the whole workbook
# A Word file's or a workbook's text, as read: about a 100-page report.
MAX_OFFICE_TEXT_CHARS = 1 << 20
# A page drawn for OCR: a scan takes well under a second, a dense vector plan a few seconds.
RENDER_PAGE_SECONDS = 30.0
# A page image on the review page, where a person waits for it (and the page is drawn smaller).
PAGE_IMAGE_SECONDS = 10.0


class AttachmentError(Exception):
    """An attachment that cannot be read: `code` is too_large, encrypted, unsupported_type,
    ocr_failed or unreadable (vocabulary.ClaimFileProblem); the message says why for a person."""

    def __init__(self, code: ClaimFileProblem, message: str) -> None:
        super().__init__(message)
        self.code: ClaimFileProblem = code


class ClaimBudgetSpent(AttachmentError):
    """The claim's one budget is spent (its pages, pixels, deadline, or what its e-mails carry
    together): the whole claim is refused, never one part of it set aside as unread, since the
    budget is what guards the service from a claim that asks too much."""


@dataclass(frozen=True)
class RenderLimits:
    """What drawing one PDF page may take: the child's address space (0: no cap) and seconds."""

    memory_bytes: int = RENDER_MEMORY_BYTES
    seconds: float = RENDER_PAGE_SECONDS


def default_render_limits() -> RenderLimits:
    """The limits a claim's pages are drawn under, read when its budget is made."""
    return RenderLimits(RENDER_MEMORY_BYTES, RENDER_PAGE_SECONDS)


@dataclass
class ClaimBudget:
    """What is left of one claim's allowance while its attachments are read, in order."""

    seconds: float | None = None  # None: no deadline
    pages: int = MAX_CLAIM_PAGES
    pixels: int = MAX_CLAIM_PIXELS
    render: RenderLimits = field(default_factory=default_render_limits)
    carried_files: int = MAX_CLAIM_CARRIED_FILES
    carried_bytes: int = MAX_CLAIM_CARRIED_BYTES
    started: float = field(default_factory=time.monotonic)

    def seconds_left(self) -> float | None:
        if self.seconds is None:
            return None
        return self.seconds - (time.monotonic() - self.started)

    def time_for(self, what: str) -> float | None:
        """The seconds `what` may take; AttachmentError (ocr_failed) when none are left."""
        left = self.seconds_left()
        if left is not None and left <= 0:
            raise ClaimBudgetSpent(
                "ocr_failed",
                f"{what}: the claim's deadline ({self.seconds:g} s) passed while its "
                "attachments were read",
            )
        return left

    def take_pages(self, what: str, count: int) -> None:
        if count > MAX_PAGES:
            raise AttachmentError("too_large", f"{what} has {count} pages; the cap is {MAX_PAGES}")
        if count > self.pages:
            raise ClaimBudgetSpent(
                "too_large",
                f"{what}: its pages take the claim past {MAX_CLAIM_PAGES} pages of attachments",
            )
        self.pages -= count

    def take_pixels(self, what: str, width: int, height: int) -> None:
        """Refuse a page or image larger than the caps: checked before it is decoded."""
        pixels = width * height
        if pixels > MAX_PIXELS:
            raise AttachmentError(
                "too_large",
                f"{what} is {width:,} × {height:,} pixels; the cap is {MAX_PIXELS:,} pixels",
            )
        if pixels > self.pixels:
            raise ClaimBudgetSpent(
                "too_large",
                f"{what}: its pixels take the claim past {MAX_CLAIM_PIXELS:,} pixels of "
                "attachments",
            )
        self.pixels -= pixels

    def take_carried(self, what: str, size: int) -> None:
        """Count a file an e-mail carries, of `size` decoded bytes, before it is decoded."""
        if self.carried_files < 1:
            raise ClaimBudgetSpent(
                "too_large",
                f"{what}: the claim's e-mails carry more than {MAX_CLAIM_CARRIED_FILES} files",
            )
        if size > MAX_DOCUMENT_BYTES:
            raise AttachmentError(
                "too_large", f"{what} is {size:,} bytes decoded; the cap is {MAX_DOCUMENT_BYTES:,}"
            )
        if size > self.carried_bytes:
            raise ClaimBudgetSpent(
                "too_large",
                f"{what}: the files the claim's e-mails carry pass {MAX_CLAIM_CARRIED_BYTES:,} "
                "bytes decoded",
            )
        self.carried_files -= 1
        self.carried_bytes -= size
