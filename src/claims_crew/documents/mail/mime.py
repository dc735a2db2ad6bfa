"""An .eml (RFC 5322 with MIME) through the standard library's parser: its headers decoded
(RFC 2047 words), its body decoded (quoted-printable, base64, the charset it declares) and the
parts it carries, each with its decoded size worked out from its encoded length first.

The body is the text/plain parts; a message with none is read from its text/html parts. Every
other leaf part is a carried file, inline images (a signature's logo) included, so that what
reaches the claim is the same whichever way the sender's client laid the message out.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import quopri
from collections.abc import Callable
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser

from claims_crew.documents.limits import MAX_BODY_BYTES, MAX_MIME_NESTING, AttachmentError
from claims_crew.documents.mail import shape
from claims_crew.documents.mail.html_body import html_text

_BASE64_PADDING = " \t\r\n="
# The transfer encodings a forwarded message may be sent in that the parser leaves encoded.
_ENCODED = frozenset({"base64", "quoted-printable"})
# Text codecs of Python's that no mail client labels a body with (_text_codec).
_NOT_CHARSETS = frozenset({"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape"})


def parse_eml(name: str, data: bytes) -> shape.Message:
    """The message in `data`; AttachmentError too_deep or too_large, checked before decoding."""
    try:
        message = BytesParser(policy=policy.default).parsebytes(data)
    except RecursionError as exc:
        raise AttachmentError("too_deep", f"{name}: its parts are nested too deep") from exc
    assert isinstance(message, EmailMessage)  # what policy.default makes
    plain: list[str] = []
    html: list[str] = []
    carried: list[shape.Carried] = []
    _walk(name, message, 0, plain, html, carried)
    body = "\n\n".join(plain) if plain else "\n\n".join(html_text(h) for h in html)
    shown = frozenset().union(*(shape.shown_ids(h) for h in html))
    return shape.Message(_headers(message), body, carried, _messages_deep(message), shown)


def _messages_deep(root: Message) -> int:
    """How deep forwarded messages go inside `root`: counted without recursion, since the
    parser builds however many levels a file holds."""
    deepest = 0
    stack = [(root, 0)]
    while stack:
        part, depth = stack.pop()
        deepest = max(deepest, depth)
        payload = _parts(part)
        if payload:
            inner = depth + (part.get_content_maintype() == "message")
            stack.extend((sub, inner) for sub in payload if isinstance(sub, Message))
    return deepest


def _walk(
    name: str,
    part: Message,
    nesting: int,
    plain: list[str],
    html: list[str],
    carried: list[shape.Carried],
) -> None:
    if nesting > MAX_MIME_NESTING:
        raise AttachmentError(
            "too_deep", f"{name}: its parts are nested more than {MAX_MIME_NESTING} deep"
        )
    kind = part.get_content_type()
    filename = _filename(part)
    payload = _parts(part)
    inner = payload[0] if payload else None
    if part.get_content_maintype() == "message" and isinstance(inner, Message):
        carried.append(_forwarded(part, inner, filename))
    elif part.is_multipart():
        for sub in payload:
            if isinstance(sub, Message):
                _walk(name, sub, nesting + 1, plain, html, carried)
    elif kind in ("text/plain", "text/html") and not filename and not _is_attachment(part):
        text = _body_text(name, part)
        (plain if kind == "text/plain" else html).append(text)
    elif part.get_content_maintype() == "text":
        # A text file in the charset its part names is read as the UTF-8 text it says; an HTML
        # file is named .html, so that the reader makes text of it as of an HTML body.
        size = decoded_size(part)
        suffix = ".html" if kind == "text/html" else ".txt"
        carried.append(_carried(part, filename, suffix, size, lambda: _text(part).encode("utf-8")))
    else:
        carried.append(_carried(part, filename, ".bin", decoded_size(part), lambda: _decoded(part)))


def _carried(
    part: Message, filename: str | None, suffix: str, size: int, open_: Callable[[], bytes]
) -> shape.Carried:
    content_id = str(part.get("content-id", "")).strip().strip("<>") or None
    return shape.Carried(filename, suffix, size, False, open_, part.get_content_type(), content_id)


def _forwarded(part: Message, inner: Message, filename: str | None) -> shape.Carried:
    """A forwarded message (message/rfc822), read as an .eml attachment, one e-mail deeper.
    Sent as it is, the parser has read it with this one and it is written out again; sent in
    base64 or quoted-printable (as GroupWise and others do), the parser sees a message of no
    headers whose body is the encoded text, which is decoded here instead."""
    encoding = str(part.get("content-transfer-encoding", "")).strip().lower()
    if encoding not in _ENCODED:
        return shape.Carried(
            filename, ".eml", None, True, lambda: inner.as_bytes(), part.get_content_type()
        )
    # The parser took what headers it could from the encoded text: written out, it is that text.
    encoded = inner.as_string(policy=inner.policy.clone(linesep="\n", max_line_length=0))
    size = _encoded_size(encoded) if encoding == "base64" else len(encoded)

    def opened() -> bytes:
        ascii_text = encoded.encode("ascii", errors="replace")
        if encoding != "base64":
            return quopri.decodestring(ascii_text)
        try:
            return base64.b64decode(ascii_text + b"==")  # padding past the end is ignored
        except binascii.Error as exc:  # a letter count no base64 text has
            raise AttachmentError(
                "unreadable", f"{filename or 'a forwarded message'}: broken base64 ({exc})"
            ) from exc

    return shape.Carried(filename, ".eml", size, True, opened, part.get_content_type())


def _filename(part: Message) -> str | None:
    """The file name a part gives; None (a name is made up for it) where its RFC 2231 charset
    fails to decode it: the standard library passes on every codec error but LookupError."""
    try:
        return part.get_filename()
    except ValueError:  # UnicodeError is one
        return None


def _parts(part: Message) -> list[Message]:
    """The parts inside a multipart or a forwarded message; [] for a leaf. A leaf's payload is
    never asked for here: for 8-bit bytes, get_payload() decodes them in the charset the part
    names, and the standard library passes on every codec error but LookupError."""
    if not part.is_multipart():
        return []
    payload = part.get_payload()
    return [sub for sub in payload if isinstance(sub, Message)] if isinstance(payload, list) else []


def decoded_size(part: Message) -> int:
    """The bytes a part decodes to, from its encoded payload: base64 gives three bytes for
    every four letters; quoted-printable and the rest are never longer decoded."""
    try:
        raw = part.get_payload(decode=False)
    except ValueError:  # UnicodeError too: 8-bit bytes in a charset that fails (see _parts)
        # They are the part's bytes as sent, never a transfer encoding's letters: their count.
        return len(_decoded(part))
    if not isinstance(raw, str):
        return 0
    if part.get("content-transfer-encoding", "").strip().lower() == "base64":
        return _encoded_size(raw)
    return len(raw)


def _encoded_size(raw: str) -> int:
    letters = len(raw) - sum(raw.count(ch) for ch in _BASE64_PADDING)
    return letters * 3 // 4


def _decoded(part: Message) -> bytes:
    data = part.get_payload(decode=True)
    return data if isinstance(data, bytes) else b""


def _is_attachment(part: Message) -> bool:
    try:
        return (part.get_content_disposition() or "") == "attachment"
    except ValueError:
        # Its parameters name a charset that fails (as in _filename): kept as a file, not read
        # into the body, as a part that says it is an attachment would be.
        return True


def _body_text(name: str, part: Message) -> str:
    size = decoded_size(part)
    if size > MAX_BODY_BYTES:
        raise AttachmentError(
            "too_large",
            f"{name}: its body is {size:,} bytes decoded; the cap is {MAX_BODY_BYTES:,}",
        )
    return _text(part)


def _text(part: Message) -> str:
    codec = _text_codec(part.get_content_charset() or "utf-8")
    try:
        return _decoded(part).decode(codec, errors="replace")
    except UnicodeError:
        # A text codec that fails whatever the error handler: none of today's Python's but
        # those _text_codec sets aside, which a later Python may add to.
        return _decoded(part).decode("utf-8", errors="replace")


def _text_codec(charset: str) -> str:
    """The codec a part's text is decoded with: the one its charset names, or UTF-8 (what
    cannot be shown replaced) for a charset no one knows and for a name Python knows but that
    is no charset: a codec from bytes to bytes (base64, rot13, zlib raise on str decoding), or
    one that reads no text of its own (idna and punycode take host names, the escapes turn a
    backslash in the text into other characters, undefined refuses everything)."""
    try:
        info = codecs.lookup(charset)
    except (LookupError, ValueError):  # ValueError: a name with a NUL in it
        return "utf-8"
    # _is_text_encoding is how the codecs module itself marks base64 and the rest apart.
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return "utf-8"
    if info.name == "ascii":
        return "utf-8"  # a superset, for the many clients that send UTF-8 labelled ASCII
    return info.name


def _headers(message: EmailMessage) -> list[tuple[str, str]]:
    return [(name, _header(message, name)) for name in shape.SHOWN_HEADERS]


def _header(message: EmailMessage, name: str) -> str:
    try:
        values = [str(v) for v in message.get_all(name, [])]
    except Exception:  # the parser's header classes fail on some malformed input
        raw = (v for k, v in message.raw_items() if k.lower() == name.lower())
        values = [_decoded_words(v) for v in raw]
    return ", ".join(" ".join(v.split()) for v in values)


def _decoded_words(raw: object) -> str:
    try:
        return str(make_header(decode_header(str(raw))))
    except (ValueError, LookupError):
        return str(raw)
