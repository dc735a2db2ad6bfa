"""Word files and workbooks made in the tests with the real writers, and zips made hostile.

python-docx and openpyxl write the files; what no writer makes (a formula's cached value, a
macro project, a zip bomb, a central directory that lies) is put in by rewriting the zip.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Callable, Sequence

import docx
import openpyxl

# The statement a Word note in the tests says, and its table of costs.
NOTE_PARAGRAPH = "The van reversed out of the bay into my passenger door at about 17:40."
NOTE_TABLE = [("Item", "Cost"), ("Door, repair and refinish", "1,150.00"), ("Total", "1,710.00")]
# What a part of a zip bomb inflates to: well under the cap on one part, a thousand times its
# compressed size, so that only the ratio refuses it.
BOMB_BYTES = 16 << 20


def word_note(paragraphs: Sequence[str] = (NOTE_PARAGRAPH,)) -> bytes:
    """A Word file: a heading, the paragraphs, a table of costs, a closing line."""
    document = docx.Document()
    document.add_heading("Statement of the insured", level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    table = document.add_table(rows=0, cols=2)
    for item, cost in NOTE_TABLE:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = item, cost
    document.add_paragraph("Signed, Marcus Bell.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def workbook(sheets: dict[str, list[list[object]]]) -> bytes:
    """A workbook of the given sheets, each a list of rows, written by openpyxl."""
    book = openpyxl.Workbook()
    book.remove(book.active)  # type: ignore[arg-type]
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def with_parts(
    data: bytes,
    change: Callable[[str, bytes], bytes] = lambda _name, body: body,
    added: dict[str, bytes] | None = None,
) -> bytes:
    """The zip with each part passed through `change`, and the `added` parts after them."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info.filename, change(info.filename, source.read(info)), 8)
        for name, body in (added or {}).items():
            target.writestr(name, body, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def cached_value(data: bytes, sheet_part: str, formula: str, value: str) -> bytes:
    """A workbook whose formula cell holds `value`, as a spreadsheet program saves it: openpyxl
    writes formulas without a cached value."""

    def change(name: str, body: bytes) -> bytes:
        if name != sheet_part:
            return body
        return body.replace(
            f"<f>{formula}</f><v></v>".encode(), f"<f>{formula}</f><v>{value}</v>".encode()
        )

    return with_parts(data, change)


def zip_bomb(office_file: bytes) -> bytes:
    """A real Office file with one more part: BOMB_BYTES of zeros, deflated to a few kB."""
    return with_parts(office_file, added={"docProps/custom.xml": b"\x00" * BOMB_BYTES})


def declaring(data: bytes, part: str, size: int) -> bytes:
    """The zip with the central directory's uncompressed size of `part` changed to `size`: what
    a zip says of its parts need not be true."""
    out = bytearray(data)
    name = part.encode()
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", out, at + 28)[0]
        if bytes(out[at + 46 : at + 46 + length]) == name:
            struct.pack_into("<I", out, at + 24, size)
            return bytes(out)
        at = out.find(b"PK\x01\x02", at + 46)
    raise KeyError(part)


def _directory_entry(name: str, kind: int, child: int, start: int, size: int) -> bytes:
    """One 128-byte entry of a compound file's directory (MS-CFB 2.6)."""
    encoded = (name + "\0").encode("utf-16-le") if name else b""
    none = 0xFFFFFFFF
    return (
        encoded.ljust(64, b"\0")
        + struct.pack("<HBB", len(encoded), kind, 1)
        + struct.pack("<III", none, none, child)
        + bytes(16 + 4 + 16)
        + struct.pack("<IQ", start, size)
    )


def compound_file(name: str = "EncryptedPackage", stream: bytes = b"\x08\x00" * 2048) -> bytes:
    """An OLE compound file holding one stream. By default what Word or Excel saves with a
    password: no zip, but a compound file whose "EncryptedPackage" stream holds the zip
    encrypted (4 kB stand for it here); an old .doc holds a "WordDocument" stream instead.
    Written by hand (MS-CFB version 3): sector 0 the FAT, 1 the directory, the stream after."""
    sector, end, free = 512, 0xFFFFFFFE, 0xFFFFFFFF
    data = stream.ljust(-(-len(stream) // sector) * sector, b"\0")
    count = len(data) // sector
    chain = [0xFFFFFFFD, end, *range(3, 2 + count), end]
    fat = struct.pack(f"<{sector // 4}I", *chain, *[free] * (sector // 4 - len(chain)))
    directory = (
        _directory_entry("Root Entry", 5, 1, end, 0)
        + _directory_entry(name, 2, 0xFFFFFFFF, 2, len(stream))
        + _directory_entry("", 0, 0xFFFFFFFF, 0, 0) * 2
    )
    header = (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
        + bytes(16)
        + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
        + bytes(6)
        + struct.pack("<IIIIIIIII", 0, 1, 1, 0, 4096, end, 0, end, 0)
        + struct.pack("<109I", 0, *[free] * 108)
    )
    return header + fat + directory + data
