"""What an e-mail reader gives, whichever the format: the headers that matter, the decoded body
and the files the message carries, each not decoded until its caps have been checked."""

from __future__ import annotations

import re
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# The headers a person reads a claim's e-mail by; routing and client headers say nothing of it.
SHOWN_HEADERS = ("From", "To", "Cc", "Date", "Subject")
_NAME_CHARS = 120


@dataclass(frozen=True)
class Carried:
    """A file a message carries. `size` is its decoded size, worked out from what the message
    declares (None for a message already parsed with its container, known once it is written
    out); `open` decodes it: its bytes, or a message embedded in an Outlook .msg."""

    name: str | None
    suffix: str  # for a part without a name: ".bin", ".eml", ".msg"
    size: int | None
    is_message: bool
    open: Callable[[], bytes | Message]
    content_type: str = "application/octet-stream"  # as the message declares it
    content_id: str | None = None  # without its angle brackets


@dataclass(frozen=True)
class Message:
    """`nested`: how deep the e-mails inside this one go (0: it carries none), counted on the
    parsed structure before any of them is decoded."""

    headers: list[tuple[str, str]]
    body: str
    carried: list[Carried] = field(default_factory=list)
    nested: int = 0
    # The Content-IDs its HTML body shows ("cid:..."): an inline image, not a file sent.
    shown_ids: frozenset[str] = frozenset()


def message_text(
    message: Message, carried_names: Iterable[str], not_read: Iterable[str] = ()
) -> str:
    """The message's text of record: its headers as lines, what it carries, a line for each
    part that could not be read ("Not read: ..."), then its body."""
    lines = [f"{name}: {value}" for name, value in message.headers if value]
    names = list(carried_names)
    if names:
        lines.append(f"Attached: {', '.join(names)}")
    lines.extend(not_read)
    return "\n".join(lines) + "\n\n" + message.body.strip() + "\n"


_CID = re.compile(r"""cid:([^\s"'<>()]+)""", re.IGNORECASE)


def shown_ids(html: str) -> frozenset[str]:
    """The Content-IDs an HTML body refers to ("cid:logo@x" in an <img src>), unquoted."""
    return frozenset(urllib.parse.unquote(found).strip("<>") for found in _CID.findall(html))


def carried_names(parts: list[Carried]) -> list[str]:
    """A safe name for each carried file, unique among its siblings: no path separator or
    control character (it becomes "message.eml/<name>"); a part without one is "part-2.bin"."""
    taken: set[str] = set()
    names = []
    for number, part in enumerate(parts, start=1):
        name = _safe(part.name or "") or f"part-{number}{part.suffix}"
        stem, dot, ext = name.rpartition(".")
        if not stem:
            stem, dot, ext = name, "", ""
        unique, n = name, 1
        while unique.lower() in taken:
            n += 1
            unique = f"{stem}-{n}{dot}{ext}"
        taken.add(unique.lower())
        names.append(unique)
    return names


def _safe(name: str) -> str:
    kept = "".join(
        "_" if ch in "/\\" or unicodedata.category(ch).startswith("C") else ch for ch in name
    )
    # A leading dot or a name of dots alone ("..") reads as a path where the name is shown.
    return kept.strip().lstrip(".").strip()[-_NAME_CHARS:]
