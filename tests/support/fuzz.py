"""What the reader fuzz shares: Hypothesis strategies that damage real attachment files as an
attacker or a broken mail client would (bit flips, truncation, spliced bytes, another kind's
magic, a repeated stretch), and that write e-mails and Outlook messages with odd charsets and
deep nesting; how many examples each reader gets; and a stand-in for Tesseract, so that pictures
are decoded and pages drawn as they are for OCR without the engine's seconds a page."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hypothesis import strategies as st

from tests.support.outlook import Outlook, outlook_message, sibling_chain

# Examples each reader gets in CI; CLAIMS_CREW_FUZZ_EXAMPLES=N gives every in-process reader N
# and each reader that starts a child process (PDF, Office) a tenth of N.
EXAMPLES_VARIABLE = "CLAIMS_CREW_FUZZ_EXAMPLES"

# The signatures the readers tell kinds apart by (documents/read.py), swapped in at the start.
MAGICS = (
    b"%PDF-1.7\n",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff\xe0",
    b"II*\x00",
    b"MM\x00*",
    b"\x00\x00\x00\x18ftypheic",
    b"PK\x03\x04",
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
    b"From: a@example.org\nTo: b@example.org\nSubject: x\n\n",
)
# Charsets a part or an encoded word may name: real ones, codecs that are no charset, unknown.
CHARSETS = (
    "utf-8", "us-ascii", "iso-8859-1", "windows-1252", "utf-16", "utf-7", "shift_jis", "gb2312",
    "base64", "rot13", "idna", "punycode", "undefined", "hex", "zlib", "bz2", "uu", "quopri",
    "unicode_escape", "raw_unicode_escape", "x-unknown", "", "utf-8\x00", "../../etc",
)  # fmt: skip
_ENCODINGS = ("7bit", "8bit", "base64", "quoted-printable", "binary", "x-uuencode", "bogus")
# Tesseract's table for a page holding no words: its header, then the page's own row.
_BLANK_TABLE = (
    r"level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    r"1\t1\t0\t0\t0\t0\t0\t0\t1\t1\t-1\t\n"
)


def examples(ci: int, in_child: bool = False) -> int:
    """The examples a reader gets: `ci`, or what CLAIMS_CREW_FUZZ_EXAMPLES asks."""
    asked = os.environ.get(EXAMPLES_VARIABLE)
    if not asked:
        return ci
    return max(1, int(asked) // 10) if in_child else int(asked)


def on_demand() -> bool:
    """Whether more examples were asked for: then the run is random, not the CI's fixed one."""
    return bool(os.environ.get(EXAMPLES_VARIABLE))


def blank_tesseract(folder: Path) -> Path:
    """A program that answers as Tesseract does (its version, English, a table of no words)."""
    program = folder / "tesseract"
    program.write_text(
        "#!/bin/sh\n"
        'case "$1" in\n'
        '  --version) echo "tesseract 5.3.0"; exit 0;;\n'
        '  --list-langs) echo "List of available languages (1):"; echo eng; exit 0;;\n'
        "esac\n"
        f"printf '{_BLANK_TABLE}' > \"$2.tsv\"\n",
        encoding="ascii",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


@st.composite
def damaged(draw: st.DrawFn, seed: bytes) -> bytes:
    """`seed` with one to four kinds of damage, each where Hypothesis chooses; the first
    kilobyte, where the headers and signatures are, is chosen as often as all the rest."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            data += draw(st.binary(min_size=1, max_size=64))
        size = len(data)
        head = st.integers(0, min(size, 1024) - 1)
        at = draw(st.one_of(head, st.integers(0, size - 1)))
        how = draw(st.sampled_from(("flip", "cut", "splice", "magic", "repeat")))
        if how == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif how == "cut":
            del data[at:]
        elif how == "splice":
            data[at : at + draw(st.integers(0, 16))] = draw(st.binary(max_size=32))
        elif how == "magic":
            magic = draw(st.sampled_from(MAGICS))
            data[: len(magic)] = magic
        else:
            end = min(size, at + draw(st.integers(1, 256)))
            data[end:end] = data[at:end] * draw(st.integers(1, 64))
    return bytes(data)


@st.composite
def odd_emails(draw: st.DrawFn) -> bytes:
    """An e-mail, written out byte by byte, whose charsets, transfer encodings, encoded words,
    attached file's name and nesting are drawn: forwarded messages inside each other and
    multiparts around them."""
    charset = st.sampled_from(CHARSETS)
    encoding = st.sampled_from(_ENCODINGS)
    line = st.text(max_size=30).map(lambda text: " ".join(text.split()).encode("utf-8"))
    kind = draw(st.sampled_from("BQX"))
    data = b"".join(
        (
            b"From: =?%s?%s?%s?= <a@example.org>\n"
            % (draw(charset).encode(), kind.encode(), draw(line)),
            b"To: claims@example.org\nSubject: %s\nMIME-Version: 1.0\n" % draw(line),
            b'Content-Type: multipart/mixed; boundary="=_o"\n\n--=_o\n',
            b"Content-Type: text/%s; charset=%s\n"
            % (draw(st.sampled_from((b"plain", b"html"))), draw(charset).encode()),
            b"Content-Transfer-Encoding: %s\n\n%s\n--=_o\n"
            % (draw(encoding).encode(), draw(st.binary(max_size=120))),
            b"Content-Type: text/plain; charset=%s\n" % draw(charset).encode(),
            b"Content-Disposition: attachment; filename*=%s''%s\n"
            % (draw(charset).encode(), draw(line)),
            b"Content-Transfer-Encoding: %s\n\n%s\n--=_o--\n"
            % (draw(encoding).encode(), draw(st.binary(max_size=120))),
        )
    )
    for _ in range(draw(st.integers(0, 6))):  # forwarded: a message/rfc822 part a level
        data = _wrapped(data, "message/rfc822", draw(charset))
    for _ in range(draw(st.integers(0, 20))):  # multipart/mixed around it, a level at a time
        data = _wrapped(data, "multipart/mixed", draw(charset))
    return data


def _wrapped(inner: bytes, kind: str, charset: str) -> bytes:
    head = f"From: a@example.org\nTo: b@example.org\nSubject: =?{charset}?Q?Fwd?=\n"
    if kind == "message/rfc822":
        return (head + "Content-Type: message/rfc822\n\n").encode() + inner
    boundary = "=_b"
    return (
        (
            head + f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{boundary}"\n\n'
            f"--{boundary}\nContent-Type: text/plain; charset={charset}\n\nSee below.\n"
            f"--{boundary}\nContent-Type: message/rfc822\n\n"
        ).encode()
        + inner
        + f"\n--{boundary}--\n".encode()
    )


@st.composite
def odd_outlook(draw: st.DrawFn) -> bytes:
    """An Outlook .msg with drawn properties, files, messages attached inside each other, and
    for some a directory whose siblings chain one after another."""
    strings = {"0037": draw(st.text(max_size=30)), "1000": draw(st.text(max_size=80))}
    message = Outlook(strings, files=[("note.txt", draw(st.binary(max_size=64)))])
    for _ in range(draw(st.integers(0, 5))):
        message = Outlook({"0037": "Fwd"}, messages=[("inner.msg", message)])
    siblings = draw(st.sampled_from((0, 0, 0, 40, 400, 3000)))
    return sibling_chain(message, siblings) if siblings else outlook_message(message)
