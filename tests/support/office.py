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
