"""winmail.dat: Outlook's Transport Neutral Encapsulation Format (application/ms-tnef), which
Exchange still sends in place of a message's own body and files, read with tnefparse.

It is a message of its own (its subject and the time it was sent, where it says; its body,
plain or HTML; the files it carries), so it is read as an e-mail is: its body its record, each
file a record under it ("mail.eml/winmail.dat/report.pdf"), and a winmail.dat inside it one
e-mail deeper. A file it carries is already in memory once the container is parsed (tnefparse
reads it whole), and the container itself was held to the cap of one document before.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from datetime import datetime

import tnefparse
from tnefparse.tnef import TNEF

from claims_crew.documents.limits import MAX_BODY_BYTES, AttachmentError
from claims_crew.documents.mail import shape
from claims_crew.documents.mail.html_body import html_text

# The signature every TNEF stream opens with (0x223E9F78, little-endian).
TNEF_MAGIC = b"\x78\x9f\x3e\x22"
# What tnefparse raises on a damaged stream: it reads fields at offsets the stream gives.
_TNEF_ERRORS = (ValueError, IndexError, KeyError, TypeError, AttributeError, struct.error)


def parse_tnef(name: str, data: bytes) -> shape.Message:
    """The message a winmail.dat holds; AttachmentError unreadable where it cannot be parsed,
    too_large where its body is over the cap of an e-mail's body."""
    try:
        tnef = tnefparse.TNEF(data)
        files = [(a.long_filename() or a.name or None, a.data) for a in tnef.attachments]
    except _TNEF_ERRORS as exc:
        raise AttachmentError(
            "unreadable", f"{name}: a TNEF that cannot be parsed ({exc})"
        ) from exc
    # tnefparse reads on through damage; each object's checksum says whether it was read whole.
    damaged = sum(not obj.good_checksum for obj in tnef.objects)
    if damaged or not tnef.objects:
        raise AttachmentError(
            "unreadable",
            f"{name}: a damaged TNEF ({damaged} of its {len(tnef.objects)} parts fail their "
            "checksums)",
        )
    codec = _codec(tnef)
    html = _text(tnef.htmlbody, codec)
    plain = _text(tnef.body, codec)
    if max(len(html), len(plain)) > MAX_BODY_BYTES:
        raise AttachmentError(
            "too_large", f"{name}: its body is over {MAX_BODY_BYTES:,} characters"
        )
    body = plain.replace("\r\n", "\n") or html_text(html)
    carried = [
        shape.Carried(str(filename) if filename else None, ".bin", len(raw), False, _bytes(raw))
        for filename, raw in files
        if isinstance(raw, bytes) and raw
    ]
    return shape.Message(_headers(tnef), body, carried, 0, shape.shown_ids(html))


def _bytes(raw: bytes) -> Callable[[], bytes]:
    return lambda: raw


def _codec(tnef: TNEF) -> str:
    codepage = tnef.codepage
    return codepage if isinstance(codepage, str) and codepage else "cp1252"


def _text(value: object, codec: str) -> str:
    """A body as tnefparse gives it: text where the stream named its code page, else bytes."""
    if isinstance(value, str):
        return value.rstrip("\x00")
    if isinstance(value, bytes):
        try:
            return value.decode(codec, errors="replace").rstrip("\x00")
        except LookupError:
            return value.decode("cp1252", errors="replace").rstrip("\x00")
    return ""


def _headers(tnef: TNEF) -> list[tuple[str, str]]:
    """Subject and the time it was sent, where the stream has them; its sender and recipients
    are the e-mail's that carries it."""
    found: dict[str, str] = {}
    for prop in tnef.msgprops:
        if prop.name == TNEF.ATTSUBJECT and isinstance(prop.data, str):
            found["Subject"] = prop.data
        elif prop.name == TNEF.ATTDATESENT and isinstance(prop.data, datetime):
            found["Date"] = prop.data.strftime("%a, %d %b %Y %H:%M:%S")
    return [(header, " ".join(found.get(header, "").split())) for header in shape.SHOWN_HEADERS]
