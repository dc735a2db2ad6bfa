"""An Outlook .msg: an OLE compound file ([MS-CFB]) laid out as [MS-OXMSG], read with olefile.

Each property of the message is a stream named ``__substg1.0_`` + its id + its type (001F:
UTF-16LE text, 001E: 8-bit text, 0102: binary); fixed-size ones (the time it was sent) are
16-byte entries of ``__properties_version1.0``. Attachments are storages
``__attach_version1.0_#0000000N``: their bytes a 0102 stream, or, for an e-mail attached as an
item, a storage holding a message laid out the same way. Every stream's size is read from the
directory before the stream itself.
"""

from __future__ import annotations

import email.utils
import io
import struct
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.parser import HeaderParser
from typing import TypeVar

import olefile

from claims_crew.documents.limits import MAX_BODY_BYTES, AttachmentError
from claims_crew.documents.mail import shape
from claims_crew.documents.mail.html_body import html_text

_T = TypeVar("_T")
_PROPERTIES = "__properties_version1.0"
_ATTACHMENT = "__attach_version1.0_#"
_EMBEDDED = "__substg1.0_3701000D"
# The header of __properties_version1.0 before its 16-byte entries: the message's own, an
# embedded message's, an attachment's ([MS-OXMSG] 2.4.1).
_TOP_HEADER, _EMBEDDED_HEADER = 32, 24
_SENT_TIME = 0x00390040  # PidTagClientSubmitTime, a FILETIME
_FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)
# A broken compound file fails in olefile's parsing in any of these ways.
_OLE_ERRORS = (OSError, ValueError, IndexError, KeyError, struct.error)


def is_outlook_message(name: str, data: bytes) -> bool:
    """Whether an OLE compound file is an Outlook .msg: its property streams, not a Word or
    Excel document's; AttachmentError unreadable for one whose directory is too deep to walk."""
    try:
        ole = _compound_file(name, data)
    except _OLE_ERRORS:
        return False
    return bool(ole.exists(_PROPERTIES)) and any(
        len(path) == 1 and path[0].startswith("__substg1.0_") for path in ole.listdir()
    )


def parse_msg(name: str, data: bytes) -> shape.Message:
    """The message in `data`; AttachmentError unreadable or too_large, before decoding."""
    # In memory: nothing is held open, and the carried parts are read from it later.
    return _broken_as_unreadable(
        name, lambda: _Storage(name, _compound_file(name, data), []).message(_TOP_HEADER)
    )


def _compound_file(name: str, data: bytes) -> olefile.OleFileIO:
    """The compound file, its whole directory read. olefile walks each storage's tree of
    children recursively, a level a sibling, so a directory that chains its entries one after
    another (a few hundred KB for thousands) runs out of Python's stack: unreadable."""
    try:
        return olefile.OleFileIO(io.BytesIO(data))
    except RecursionError as exc:
        raise AttachmentError(
            "unreadable", f"{name}: its compound file's directory is nested too deep to read"
        ) from exc


def _broken_as_unreadable(name: str, read: Callable[[], _T]) -> _T:
    try:
        return read()
    except _OLE_ERRORS as exc:
        raise AttachmentError("unreadable", f"{name}: a broken Outlook message ({exc})") from exc


class _Storage:
    """One message's storage in the compound file: the file's root or an embedded message."""

    def __init__(self, name: str, ole: olefile.OleFileIO, prefix: list[str]) -> None:
        self.name, self.ole, self.prefix = name, ole, prefix

    def message(self, header: int) -> shape.Message:
        sender = self.text("0C1A")
        address = self.text("5D01") or self.text("0C1F")
        if sender and address and address != sender:
            sender = f"{sender} <{address}>"
        values = {
            "From": sender or address,
            "To": self.text("0E04"),
            "Cc": self.text("0E03"),
            "Date": self._date(header),
            "Subject": self.text("0037"),
        }
        headers = [(h, " ".join(values[h].split())) for h in shape.SHOWN_HEADERS]
        nested = max(
            (p.count(_EMBEDDED) - self.prefix.count(_EMBEDDED) for p in self.ole.listdir()),
            default=0,
        )
        html = self._html()
        return shape.Message(
            headers, self._body(html), self._attachments(), nested, shape.shown_ids(html)
        )

    def text(self, prop: str, within: list[str] | None = None) -> str:
        """A string property, UTF-16LE (001F) or 8-bit (001E, in the usual Western code page)."""
        for kind, codec in (("001F", "utf-16-le"), ("001E", "cp1252")):
            raw = self._stream((within or self.prefix) + [f"__substg1.0_{prop}{kind}"])
            if raw is not None:
                return raw.decode(codec, errors="replace").rstrip("\x00")
        return ""

    def _stream(self, path: list[str], cap: int = MAX_BODY_BYTES) -> bytes | None:
        if not self.ole.exists(path) or self.ole.get_type(path) != olefile.STGTY_STREAM:
            return None
        size = self.ole.get_size(path)
        if size > cap:
            raise AttachmentError(
                "too_large",
                f"{self.name}: its {path[-1]} is {size:,} bytes; the cap is {cap:,}",
            )
        data: bytes = self.ole.openstream(path).read()
        return data

    def _body(self, html: str) -> str:
        return self.text("1000") or html_text(html)

    def _html(self) -> str:
        """The HTML body (PidTagHtml), binary or a string; "" where there is none."""
        html = self._stream([*self.prefix, "__substg1.0_10130102"])
        if html is None:
            return self.text("1013")
        try:
            return html.decode("utf-8")
        except UnicodeDecodeError:
            return html.decode("cp1252", errors="replace")

    def _date(self, header: int) -> str:
        # The Date header the message was sent with, where the store kept it; else the time
        # the client submitted it.
        if transport := self.text("007D"):
            date = HeaderParser().parsestr(transport, headersonly=True).get("Date")
            if date:
                return str(date)
        raw = self._stream([*self.prefix, _PROPERTIES]) or b""
        for at in range(header, len(raw) - 15, 16):
            if int.from_bytes(raw[at : at + 4], "little") == _SENT_TIME:
                ticks = int.from_bytes(raw[at + 8 : at + 16], "little")
                try:
                    sent = _FILETIME_EPOCH + timedelta(microseconds=ticks // 10)
                except OverflowError:
                    return ""
                return email.utils.format_datetime(sent)
        return ""

    def _attachments(self) -> list[shape.Carried]:
        depth = len(self.prefix) + 1
        storages = sorted(
            path
            for path in self.ole.listdir(streams=False, storages=True)
            if len(path) == depth and path[:-1] == self.prefix and path[-1].startswith(_ATTACHMENT)
        )
        return [part for path in storages if (part := self._attachment(path)) is not None]

    def _attachment(self, path: list[str]) -> shape.Carried | None:
        filename = self.text("3707", path) or self.text("3704", path) or None
        # PidTagAttachMimeTag and PidTagAttachContentId: how an HTML body shows it inline.
        content_type = self.text("370E", path) or "application/octet-stream"
        content_id = self.text("3712", path).strip().strip("<>") or None
        embedded = [*path, _EMBEDDED]
        if self.ole.exists(embedded) and self.ole.get_type(embedded) == olefile.STGTY_STORAGE:
            inner = _Storage(self.name, self.ole, embedded)
            size = sum(
                self.ole.get_size(p) for p in self.ole.listdir() if p[: len(embedded)] == embedded
            )
            return shape.Carried(
                filename,
                ".msg",
                size,
                True,
                lambda: _broken_as_unreadable(self.name, lambda: inner.message(_EMBEDDED_HEADER)),
                "application/vnd.ms-outlook",
            )
        data = [*path, "__substg1.0_37010102"]
        if not self.ole.exists(data):
            return None  # attached by reference (a link), or an OLE object: nothing to read
        size = self.ole.get_size(data)
        return shape.Carried(
            filename,
            ".bin",
            size,
            False,
            lambda: self._read(data, size),
            content_type,
            content_id,
        )

    def _read(self, path: list[str], size: int) -> bytes:
        data: bytes = _broken_as_unreadable(self.name, lambda: self.ole.openstream(path).read(size))
        return data
