"""An XFA form's filled values, read from its datasets packet, and a note for a packet not read.

An XFA form (a form drawn from XML, as many government forms are) keeps what was typed into it in
its datasets packet. Real filled forms carry XML that is not well-formed: a raw "&" typed into a
box ("Humanitarian & Compassionate") is written unescaped by some filling tools, and a strict
parser gives up on the whole packet. So:

- a bare "&" that starts no entity or character reference is escaped before parsing (what the
  person typed is kept, "&" and all);
- the packet is then parsed by lxml with recovery on, and with DTDs, entities and the network
  off; a packet that declares a document type is refused outright (that is how entity expansion
  bombs come in), and so is a packet of which nothing can be recovered;
- a packet refused, or one the parser had to repair further (some values may be lost), comes
  back as an `XfaUnread` note: the caller lists it on the record, so nothing vanishes unsaid.

Like form_fields.py, this module runs in the PDF reader child (reader.py loads it by its path),
so it imports only the standard library, pypdf and lxml.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

# lxml ships no type hints; it is called here alone (it comes with python-docx).
from lxml import etree  # type: ignore[import-untyped]
from pypdf.generic import ArrayObject

_XFA_DATA = "{http://www.xfa.org/schema/xfa-data/1.0/}data"
# "&" not followed by a name or a character reference and ";": typed text, not markup.
_BARE_AMPERSAND = re.compile(rb"&(?![A-Za-z_][\w.-]*;|#[0-9]+;|#x[0-9A-Fa-f]+;)")
# How much of the parser's first complaint a note quotes.
_REASON_CHARS = 160


class XfaUnread(NamedTuple):
    """A datasets packet not read, or read only in part: its decoded size and why."""

    size: int
    reason: str


class XfaRead(NamedTuple):
    """(element name, text) of each filled leaf, and the packets not wholly read."""

    values: list[tuple[str, str]]
    unread: list[XfaUnread]


class XfaTooLarge(Exception):
    """More filled values than the form cap."""


def xfa_values(xfa: Any, max_fields: int) -> XfaRead:
    """The filled leaves of an XFA form's datasets (`xfa` is the AcroForm's /XFA entry, or None)
    and a note for each datasets packet that could not be read whole.

    Raises XfaTooLarge past `max_fields` values: they count against the AcroForm's cap.
    """
    values: list[tuple[str, str]] = []
    unread: list[XfaUnread] = []
    for stream in _datasets_streams(xfa):
        try:
            data = stream.get_data() if hasattr(stream, "get_data") else b""
        except Exception as exc:  # pypdf's filters raise many types on a broken stream
            unread.append(XfaUnread(0, f"its stream cannot be decoded ({_one_line(exc)})"))
            continue
        found, note = _parse(data)
        if note is not None:
            unread.append(XfaUnread(len(data), note))
        for tag, text in found:
            values.append((tag, text))
            if len(values) > max_fields:
                raise XfaTooLarge(
                    f"its XFA form has more than {max_fields:,} filled values; that is the cap"
                )
    return XfaRead(values, unread)


def _datasets_streams(xfa: Any) -> list[Any]:
    xfa = xfa.get_object() if xfa is not None else None
    if isinstance(xfa, ArrayObject):  # [name, stream, name, stream, …]: the datasets packet
        packets = list(zip(xfa[::2], xfa[1::2], strict=False))
        return [s.get_object() for n, s in packets if str(n) == "datasets"]
    return [xfa] if xfa is not None else []


def _parse(data: bytes) -> tuple[list[tuple[str, str]], str | None]:
    """The packet's filled leaves, and why it was not read whole (None when it was)."""
    head = data.upper()
    if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
        return [], "it declares a document type, which is refused (entity expansion)"
    parser = etree.XMLParser(
        recover=True, resolve_entities=False, load_dtd=False, no_network=True, huge_tree=False
    )
    try:
        root = etree.fromstring(_BARE_AMPERSAND.sub(b"&amp;", data), parser)
    except etree.XMLSyntaxError as exc:
        return [], f"its XML cannot be read ({_one_line(exc)})"
    if root is None:
        return [], "its XML cannot be read (nothing could be recovered)"
    found = root if root.tag == _XFA_DATA else root.find(f".//{_XFA_DATA}")
    values = [] if found is None else list(_leaves(found))
    errors = list(parser.error_log)
    if errors:
        first = errors[0]
        return values, (
            f"its XML is broken (line {first.line}: {_one_line(first.message)}); "
            "values may be missing"
        )
    return values, None


def _leaves(found: Any) -> list[tuple[str, str]]:
    """Each element without element children, with its text (an unknown entity left out)."""
    leaves: list[tuple[str, str]] = []
    for element in found.iter():
        if not isinstance(element.tag, str) or any(isinstance(c.tag, str) for c in element):
            continue
        text = "".join(_texts(element)).strip()
        if text:
            leaves.append((element.tag.rsplit("}", 1)[-1], text))
    return leaves


def _texts(element: Any) -> list[str]:
    """The element's own text and the tails of what sits inside it (comments, entities)."""
    return [element.text or "", *(child.tail or "" for child in element)]


def _one_line(exc: object) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= _REASON_CHARS else text[:_REASON_CHARS] + " …"
