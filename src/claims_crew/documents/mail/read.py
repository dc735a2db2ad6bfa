"""E-mails as claims arrive in them: an .eml (RFC 5322, mime.py), an Outlook .msg
(outlook.py) or a winmail.dat (tnef.py). The message's headers and decoded body are its own
record, of one page; each file it carries becomes a record of the claim, read by the same
readers as any attachment and named under it ("message.eml/plumber.pdf"), and an e-mail it
carries is followed in turn, to MAX_EMAIL_DEPTH.

Each cap is checked before the part it concerns is decoded: the depth of a carried message,
the count of files one message and the whole claim carry, and each file's decoded size and
their total (worked out from the encoded length). Pages and pixels are the readers' own, on
the claim's one budget. A container keeps what it can read: a carried file the readers cannot
read (its type, damage, its own caps) is an unread part of the outermost e-mail's record,
named by its path, with a "Not read: ..." line in that record's text, and every other record
is kept; the claim's budget, the nesting caps and the claim's own e-mail's caps still refuse
the claim whole (limits.py says which and why).
"""

from __future__ import annotations

import hashlib
import mimetypes
import re
import time
from collections.abc import Callable

from claims_crew.documents.limits import (
    DECORATION_IMAGE_BYTES,
    MAX_EMAIL_DEPTH,
    MAX_MESSAGE_FILES,
    AttachmentError,
    ClaimBudget,
    ClaimBudgetSpent,
)
from claims_crew.documents.mail.html_body import html_text
from claims_crew.documents.mail.mime import parse_eml
from claims_crew.documents.mail.outlook import is_outlook_message, parse_msg
from claims_crew.documents.mail.shape import Carried, Message, carried_names, message_text
from claims_crew.documents.mail.tnef import TNEF_MAGIC, parse_tnef
from claims_crew.documents.record import AttachmentRecord, PageText, ReadFile, UnreadPart

__all__ = ["TNEF_MAGIC", "html_text", "is_outlook_message", "looks_like_message", "read_message"]

ReadDocument = Callable[[str, bytes, ClaimBudget, int], list[ReadFile]]

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_HEADER_LINE = re.compile(r"([!-9;-~]+):")
_CONTINUATION = (" ", "\t")
# Headers a message has and a note does not begin with; a note that starts "Subject: …" has one.
_MESSAGE_HEADERS = frozenset(
    {"from", "to", "date", "subject", "mime-version", "received", "message-id", "content-type"}
)
_MIN_MESSAGE_HEADERS = 3
_HEAD_CHARS = 64 << 10


def looks_like_message(text: str) -> bool:
    """Whether a UTF-8 file is an RFC 5322 message rather than a note: it opens with a block of
    header lines (up to the first blank line) holding at least three of the headers a message
    has, From, To, Date, Subject, MIME-Version, Received, Message-ID or Content-Type."""
    head = re.split(r"\r?\n\r?\n", text[:_HEAD_CHARS], maxsplit=1)[0]
    lines = head.splitlines()
    if lines and lines[0].startswith("From "):
        lines = lines[1:]  # the envelope line a message saved from a mailbox starts with
    names: set[str] = set()
    for line in lines:
        if line.startswith(_CONTINUATION) and names:
            continue
        header = _HEADER_LINE.match(line)
        if header is None:
            return False  # a sentence among the first lines: a note
        names.add(header.group(1).lower())
    return len(names & _MESSAGE_HEADERS) >= _MIN_MESSAGE_HEADERS


def read_message(
    name: str, data: bytes, budget: ClaimBudget, depth: int, read_document: ReadDocument
) -> list[ReadFile]:
    """The message's record (headers and decoded body), then those of what it carries.
    `depth`: how many e-mails this one is inside.

    Raises AttachmentError: too_deep, too_large, unreadable, or a carried file's own code.
    """
    started = time.monotonic()
    _check_depth(name, depth)
    if data.startswith(_OLE_MAGIC):
        message = parse_msg(name, data)
    elif data.startswith(TNEF_MAGIC):
        message = parse_tnef(name, data)
    else:
        message = parse_eml(name, data)
    if depth + message.nested > MAX_EMAIL_DEPTH:
        raise AttachmentError(
            "too_deep",
            f"{name} holds e-mails {message.nested} deep inside it; e-mails are followed "
            f"{MAX_EMAIL_DEPTH} deep",
        )
    return _message_files(name, data, message, budget, depth, read_document, started)


def _check_depth(name: str, depth: int) -> None:
    if depth > MAX_EMAIL_DEPTH:
        raise AttachmentError(
            "too_deep",
            f"{name}: an e-mail inside {depth} others; e-mails are followed {MAX_EMAIL_DEPTH} deep",
        )


def _message_files(
    name: str,
    data: bytes,
    message: Message,
    budget: ClaimBudget,
    depth: int,
    read_document: ReadDocument,
    started: float,
) -> list[ReadFile]:
    if len(message.carried) > MAX_MESSAGE_FILES:
        raise AttachmentError(
            "too_large",
            f"{name} carries {len(message.carried)} files; the cap is {MAX_MESSAGE_FILES}",
        )
    names = carried_names(message.carried)
    files: list[ReadFile] = []
    unread: list[UnreadPart] = []
    for part, part_name in zip(message.carried, names, strict=True):
        path = f"{name}/{part_name}"
        try:
            read = _read_carried(path, part, budget, depth, read_document)
        except ClaimBudgetSpent:
            raise  # the claim's own budget: the whole claim is refused (limits.py)
        except AttachmentError as exc:
            if exc.code == "too_deep":
                raise  # e-mails nested past the cap: refused whole, as before any was read
            unread.append(_unread(path, part, exc, message.shown_ids))
            continue
        for record, original in read:
            # Parts a carried e-mail could not read are named on the outermost e-mail's record.
            unread += record.unread
            files.append(ReadFile(record.model_copy(update={"unread": []}), original))
    # The outermost e-mail's text names every part not read, so the intake agent sees them.
    lines = [part.line() for part in unread] if depth == 0 else []
    record = AttachmentRecord(
        name=name,
        kind="email",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        pages=[PageText(number=1, text=message_text(message, names, lines))],
        seconds=round(time.monotonic() - started, 3),
        unread=unread,
    )
    return [ReadFile(record, data), *files]


def _unread(path: str, part: Carried, error: AttachmentError, shown: frozenset[str]) -> UnreadPart:
    """The part at `path` as not read, and whether it is decoration: an image the HTML body
    shows by its Content-ID, or one under DECORATION_IMAGE_BYTES (a logo, an icon)."""
    content_type = part.content_type.lower()
    guessed, _ = mimetypes.guess_type(part.name or "")
    is_image = content_type.startswith("image/") or (guessed or "").startswith("image/")
    size = part.size if part.size is not None else _written_size(part)
    shown_inline = part.content_id is not None and part.content_id in shown
    return UnreadPart(
        name=path,
        content_type=content_type,
        size=size,
        code=error.code,
        reason=" ".join(str(error).split())[:300],
        decoration=is_image and (shown_inline or size < DECORATION_IMAGE_BYTES),
    )


def _written_size(part: Carried) -> int:
    """A forwarded message's bytes, written out again, where the message did not say them."""
    try:
        opened = part.open()
    except AttachmentError:
        return 0
    return len(opened) if isinstance(opened, bytes) else 0


def _read_carried(
    name: str, part: Carried, budget: ClaimBudget, depth: int, read_document: ReadDocument
) -> list[ReadFile]:
    started = time.monotonic()
    if part.is_message:
        _check_depth(name, depth + 1)
    if part.size is not None:
        budget.take_carried(name, part.size)
    opened = part.open()
    if isinstance(opened, Message):
        # A message embedded in an Outlook .msg is a storage, not a file: its text is what
        # is kept of it.
        text = message_text(opened, carried_names(opened.carried)).encode("utf-8")
        return _message_files(name, text, opened, budget, depth + 1, read_document, started)
    if part.size is None:
        budget.take_carried(name, len(opened))
    return read_document(name, opened, budget, depth + 1)
