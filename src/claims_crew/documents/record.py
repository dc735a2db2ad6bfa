"""An attachment's text of record: what intake read, page by page, kept with the claim.

It is read once, when its claim file is taken in, and stored with the claim (store/triage.py);
the intake agent, the fact check, the targeted question, the review views and a re-run all see
these pages, never the file again. Each page says whether its text came from the PDF's text
layer or from OCR, and how sure the engine was of each OCR line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from claims_crew.documents.images.ocr import OcrLine
from claims_crew.vocabulary import ClaimFileProblem

# email: an .eml or Outlook .msg (its headers and body; each file it carries is a record of its
# own, named "message.eml/report.pdf"); docx: a Word document; xlsx: a spreadsheet, a sheet a page.
AttachmentKind = Literal["text", "pdf", "image", "email", "docx", "xlsx"]
# The kinds whose original has pages to draw for a person (the review page's page images).
PAGED_KINDS: frozenset[AttachmentKind] = frozenset({"pdf", "image"})
PageSource = Literal["text", "ocr"]
# Why an attachment, or a page of one, could not be read. needs_ocr leaves the claim to go on
# with what could be read; the others refuse the claim file (claim_files.py).
AttachmentCode = Literal["too_large", "needs_ocr", "ocr_failed", "encrypted", "unsupported_type"]
# Below this, an OCR line is shown as low-confidence wherever a fact is quoted from it.
LOW_CONFIDENCE = 0.80


class PageText(BaseModel):
    """One page as intake read it (a text attachment is one page)."""

    model_config = ConfigDict(frozen=True)

    number: int = Field(ge=1)
    text: str
    source: PageSource = "text"
    confidence: float | None = Field(None, description="OCR only: the page's mean, 0..1.")
    lines: list[OcrLine] = Field(default_factory=list, description="OCR only.")

    def quote_confidence(self, quote: str) -> float | None:
        """How sure OCR was of the lines a quote is drawn from: the least confident line most
        of whose words the quote holds; None for a text-layer page."""
        if self.source != "ocr":
            return None
        said = set(_words(quote))
        drawn = [
            line.confidence
            for line in self.lines
            if (words := _words(line.text)) and sum(w in said for w in words) * 2 >= len(words)
        ]
        return min(drawn) if drawn else self.confidence


class UnreadPart(BaseModel):
    """A part inside an attachment that could not be read: a file an e-mail carries, a form's
    XFA packet. The attachment keeps every record it could read, and the part is named wherever
    the claim is shown; unless it is decoration, no automatic decision rests on a claim that
    has one (the resolver escalates it)."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Where it sits: 'message.eml/part-1.bin', 'form.pdf/xfa'.")
    content_type: str = Field(description="Its declared type, e.g. image/gif.")
    size: int = Field(ge=0, description="Its bytes, decoded.")
    code: ClaimFileProblem
    reason: str = Field("", description="Why, for a person, on one line.")
    decoration: bool = Field(
        False,
        description="An inline image the HTML body shows by Content-ID, or a small image: "
        "listed, but no reason to stop a decision.",
    )

    def line(self) -> str:
        """'Not read: part-1.bin, image/gif, 3 KB: unsupported_type', as every view shows it."""
        tail = " (decoration)" if self.decoration else ""
        return f"Not read: {self.name}, {self.content_type}, {_size(self.size)}: {self.code}{tail}"


class AttachmentRecord(BaseModel):
    """An attachment's text of record, its file's hash and where the original is kept."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: AttachmentKind
    sha256: str
    size: int
    pages: list[PageText]
    problem: AttachmentCode | None = Field(
        None, description="needs_ocr: some pages were not read (no engine installed)."
    )
    message: str = ""
    kept_at: str | None = Field(None, description="The original file, kept for the review page.")
    seconds: float = Field(0.0, description="How long reading it took (OCR mostly).")
    unread: list[UnreadPart] = Field(
        default_factory=list, description="Parts inside it that could not be read."
    )

    @property
    def text(self) -> str:
        """All pages, as the intake agent is shown them."""
        if self.kind == "text":
            return self.pages[0].text if self.pages else ""
        return "\n\n".join(f"[page {p.number}]\n{p.text}" for p in self.pages if p.text)

    @classmethod
    def of_text(cls, name: str, text: str, sha256: str = "", size: int = 0) -> AttachmentRecord:
        """A text attachment (or one stored before pages were kept: its text alone)."""
        return cls(
            name=name, kind="text", sha256=sha256, size=size, pages=[PageText(number=1, text=text)]
        )


class ReadFile(NamedTuple):
    """A record as intake read it, with the bytes it was read from (kept by their hash)."""

    record: AttachmentRecord
    data: bytes


_STORED = TypeAdapter(dict[str, AttachmentRecord | str])


def records_json(records: Mapping[str, AttachmentRecord]) -> str:
    """The records as the store keeps them: a JSON object by attachment name."""
    return json.dumps(
        {name: record.model_dump(mode="json") for name, record in records.items()},
        ensure_ascii=False,
    )


def records_from_json(text: str) -> dict[str, AttachmentRecord]:
    """Stored records back; a claim kept before pages were (its attachments' text alone) reads
    as text attachments of one page."""
    return {
        name: value
        if isinstance(value, AttachmentRecord)
        else AttachmentRecord.of_text(name, value)
        for name, value in _STORED.validate_json(text).items()
    }


def unread_parts(records: Mapping[str, AttachmentRecord]) -> list[UnreadPart]:
    """Every part the claim's attachments could not read, in the order of their records."""
    return [part for record in records.values() for part in record.unread]


def blocking_parts(records: Mapping[str, AttachmentRecord]) -> list[UnreadPart]:
    """The unread parts that keep a decision from being made without a person."""
    return [part for part in unread_parts(records) if not part.decoration]


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1 << 20:
        return f"{round(size / 1024)} KB"
    return f"{size / (1 << 20):.1f} MB"


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())
