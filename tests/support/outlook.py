"""Outlook .msg files for tests, laid out as [MS-OXMSG] says and written as a compound file
by tests/support/cfb.py: string properties as UTF-16LE streams, the time it was sent in
__properties_version1.0, each attachment a storage, an attached e-mail a storage inside it."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from datetime import UTC, datetime

from tests.support.cfb import compound_file

_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)
_CLIENT_SUBMIT_TIME = 0x00390040
_ATTACH_METHOD = 0x37050003
_BY_VALUE, _EMBEDDED = 1, 5


@dataclass
class Outlook:
    """A message: its string properties by id ("0037": the subject), its HTML body (binary,
    for a message without a plain one), the time it was sent, its attachments."""

    strings: dict[str, str]
    html: bytes | None = None
    sent: datetime | None = None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    messages: list[tuple[str, Outlook]] = field(default_factory=list)
    # A file's Content-ID (PidTagAttachContentId) and type (PidTagAttachMimeTag), by its name.
    content_ids: dict[str, tuple[str, str]] = field(default_factory=dict)


def outlook_message(message: Outlook) -> bytes:
    """The .msg file of `message`."""
    streams: dict[tuple[str, ...], bytes] = {("__nameid_version1.0", "__substg1.0_00020102"): b""}
    _add(streams, (), message, header=32)
    return compound_file(streams)


def sibling_chain(message: Outlook, siblings: int) -> bytes:
    """The .msg file of `message` beside `siblings` empty property streams, its root's children
    written as one chain of right siblings (a directory tree as deep as it is wide)."""
    streams: dict[tuple[str, ...], bytes] = {("__nameid_version1.0", "__substg1.0_00020102"): b""}
    _add(streams, (), message, header=32)
    for number in range(siblings):
        streams[(f"__substg1.0_{0x8000 + number:04X}001F",)] = b""
    return compound_file(streams, chained=True)


def _add(
    streams: dict[tuple[str, ...], bytes], at: tuple[str, ...], message: Outlook, header: int
) -> None:
    for prop, value in message.strings.items():
        streams[(*at, f"__substg1.0_{prop}001F")] = value.encode("utf-16-le")
    if message.html is not None:
        streams[(*at, "__substg1.0_10130102")] = message.html
    fixed = b""
    if message.sent is not None:
        ticks = int((message.sent - _EPOCH).total_seconds()) * 10_000_000
        fixed = _property(_CLIENT_SUBMIT_TIME, ticks)
    count = len(message.files) + len(message.messages)
    # Reserved, next recipient id, next attachment id, recipient count, attachment count.
    top = struct.pack("<8sIIII", b"", 0, count, 0, count) + b"\0" * (header - 24)
    streams[(*at, "__properties_version1.0")] = top[:header] + fixed
    number = 0
    for filename, data in message.files:
        storage = (*at, f"__attach_version1.0_#{number:08X}")
        streams[(*storage, "__substg1.0_3707001F")] = filename.encode("utf-16-le")
        streams[(*storage, "__substg1.0_37010102")] = data
        if filename in message.content_ids:
            content_id, content_type = message.content_ids[filename]
            streams[(*storage, "__substg1.0_3712001F")] = content_id.encode("utf-16-le")
            streams[(*storage, "__substg1.0_370E001F")] = content_type.encode("utf-16-le")
        streams[(*storage, "__properties_version1.0")] = b"\0" * 8 + _property(
            _ATTACH_METHOD, _BY_VALUE
        )
        number += 1
    for filename, inner in message.messages:
        storage = (*at, f"__attach_version1.0_#{number:08X}")
        streams[(*storage, "__substg1.0_3707001F")] = filename.encode("utf-16-le")
        streams[(*storage, "__properties_version1.0")] = b"\0" * 8 + _property(
            _ATTACH_METHOD, _EMBEDDED
        )
        _add(streams, (*storage, "__substg1.0_3701000D"), inner, header=24)
        number += 1


def _property(tag: int, value: int) -> bytes:
    """A fixed-size property entry: its tag, flags (readable, writable), its 8-byte value."""
    return struct.pack("<IIQ", tag, 6, value)
