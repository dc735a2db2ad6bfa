"""E-mails for tests, made with the standard library's email package, and reading them as
intake does."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from claims_crew.documents.limits import AttachmentError, ClaimBudget
from claims_crew.documents.read import read_document
from claims_crew.documents.record import ReadFile
from tests.support.attachments import INBOX, SPLIT_REPORT

PDF = (INBOX / SPLIT_REPORT).read_bytes()  # a two-page report with a text layer
# Bytes no reader takes: read, they would refuse the claim as unsupported_type.
UNREADABLE = b"\xff\xfe\x00\x81" * 64


def mail(body: str = "The pipe under the bath split.", **headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = headers.get("From", "Amara Okafor <amara@example.org>")
    message["To"] = "claims@harbour-mutual.example"
    message["Date"] = "Sun, 18 Jan 2026 09:30:00 +0000"
    message["Subject"] = headers.get("Subject", "Burst pipe")
    message.set_content(body)
    return message


def read_all(name: str, data: bytes, budget: ClaimBudget | None = None) -> list[ReadFile]:
    return read_document(name, data, budget or ClaimBudget())


def refused(name: str, data: bytes, budget: ClaimBudget | None = None) -> AttachmentError:
    with pytest.raises(AttachmentError) as caught:
        read_all(name, data, budget)
    assert name in str(caught.value)
    return caught.value


def forwarded(levels: int, innermost: EmailMessage) -> bytes:
    """`innermost` forwarded `levels` times, each time as a message/rfc822 part."""
    message = innermost
    for level in range(levels):
        outer = mail(f"Forwarding, level {level}.")
        outer.add_attachment(message)
        message = outer
    return message.as_bytes()
