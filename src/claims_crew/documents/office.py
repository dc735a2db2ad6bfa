"""Word documents and spreadsheets: paragraphs and tables, sheets as rows of cells.

TODO(issue 39): not read yet; the Office reader lands with its tests.
"""

from __future__ import annotations

from claims_crew.documents.limits import AttachmentError, ClaimBudget
from claims_crew.documents.record import AttachmentKind, PageText


def office_kind(name: str, data: bytes) -> AttachmentKind:
    """docx or xlsx, told from the zip's parts; unsupported_type for any other zip."""
    raise AttachmentError("unsupported_type", f"{name}: a zip archive, not read")


def office_pages(
    name: str, data: bytes, kind: AttachmentKind, budget: ClaimBudget
) -> list[PageText]:
    """The document as one page, or the workbook a sheet a page."""
    raise AttachmentError("unsupported_type", f"{name}: Office files are not read yet")
