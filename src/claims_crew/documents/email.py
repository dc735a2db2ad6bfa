"""E-mails as claims arrive in them: an .eml (RFC 5322) or an Outlook .msg.

TODO(issue 39): not read yet; the e-mail reader lands with its tests.
"""

from __future__ import annotations

from collections.abc import Callable

from claims_crew.documents.limits import AttachmentError, ClaimBudget
from claims_crew.documents.record import ReadFile

ReadDocument = Callable[[str, bytes, ClaimBudget, int], list[ReadFile]]


def looks_like_message(text: str) -> bool:
    """Whether a UTF-8 file is an RFC 5322 message rather than a note."""
    return False


def is_outlook_message(data: bytes) -> bool:
    """Whether an OLE compound file is an Outlook .msg."""
    return False


def read_message(
    name: str, data: bytes, budget: ClaimBudget, depth: int, read_document: ReadDocument
) -> list[ReadFile]:
    """The message's record (headers and decoded body), then those of its attachments."""
    raise AttachmentError("unsupported_type", f"{name}: e-mails are not read yet")
