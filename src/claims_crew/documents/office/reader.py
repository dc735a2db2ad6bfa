"""The Office reader process: the text of the Word file or workbook on stdin, as JSON on stdout.

read.py starts this file as a script in a fresh interpreter (`python -P
.../office/reader.py`), as the PDF reader's child is started (child_process.py), so it imports
only the standard library, python-docx and openpyxl, never the caller. Before it imports them it
caps its own address space (RLIMIT_AS), as the page renderer does: the parent has checked the
sizes the zip declares, but the XML inside is still outside input, and a part that inflates or
parses into more than the cap makes an allocation fail in this child alone. zipfile itself never
inflates a part past the size it declared (a part that lies fails its CRC check instead).

Nothing in the file is ever run: python-docx and openpyxl read XML parts and nothing else, a
macro project (vbaProject.bin) is never read, and a formula is never evaluated: a cell gives the
value the spreadsheet program cached when it last saved the file (data_only).

Protocol, kept small so the parent can check it:
- argv[0]: the address-space cap in bytes ("0": none); argv[1:]: folders from the parent's
  sys.path, appended after the child's own;
- stdin: one line of ASCII JSON, `{"kind": "docx" or "xlsx", "max_rows": n, "max_cells": n,
  "max_chars": n}`, then the file's bytes to the end; nothing at all means the child is not
  needed, and it exits without a word;
- stdout: `{"pages": [text, ...]}` (a Word file is one page, a workbook a sheet a page) or
  `{"error": {"code": ..., "message": ...}}`, code "too_large", "memory" or "unreadable".
"""

from __future__ import annotations

import datetime
import io
import json
import sys
import warnings
from collections.abc import Iterator
from typing import Any, BinaryIO

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_WORD_MAIN_TYPES = (
    "application/vnd.ms-word.document.macroEnabled.main+xml",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
)


class TooLarge(Exception):
    """The file holds more rows, cells or text than the caps the parent sent."""


def docx_text(data: bytes, caps: dict[str, int]) -> list[str]:
    """A Word file's paragraphs and tables, in the order of its body, as one page."""
    from docx.opc.part import PartFactory
    from docx.package import Package
    from docx.parts.document import DocumentPart
    from docx.table import Table

    # python-docx reads a main part of a .docx's content type alone; the text of a
    # macro-enabled .docm or of a template is as much evidence, and it is the same XML. Opened
    # through Package, as docx.Document would but without its check of that type; the macro
    # project beside it is never read.
    for content_type in _WORD_MAIN_TYPES:
        PartFactory.part_type_for.setdefault(content_type, DocumentPart)
    package = Package.open(io.BytesIO(data))
    document = package.main_document_part.document
    lines: list[str] = []
    size = 0
    for block in document.iter_inner_content():
        found = _table_lines(block) if isinstance(block, Table) else [block.text]
        for line in found:
            size += len(line) + 1
            if size > caps["max_chars"]:
                raise TooLarge(f"its text is over {caps['max_chars']:,} characters")
            lines.append(line)
    # What python-docx's body leaves out but a reader of the page sees: text boxes (a claimant's
    # callout on a sketch) and footnotes (where a date or a condition is often put).
    extra = _text_box_lines(document.element) + _footnote_lines(package)
    size += sum(len(line) + 1 for line in extra)
    if size > caps["max_chars"]:
        raise TooLarge(f"its text is over {caps['max_chars']:,} characters")
    return ["\n".join(lines + extra).strip()]


def _paragraph_text(paragraph: Any) -> str:
    return "".join(t.text or "" for t in paragraph.iter(f"{{{_W}}}t")).strip()


def _paragraphs_text(element: Any) -> str:
    return " ".join(t for p in element.iter(f"{{{_W}}}p") if (t := _paragraph_text(p)))


def _text_box_lines(body: Any) -> list[str]:
    """Each text box once: Word writes a box twice (a DrawingML shape and its VML fallback),
    and the fallback's copy is the one left out."""
    lines = []
    for box in body.iter(f"{{{_W}}}txbxContent"):
        if any(str(up.tag).endswith("}Fallback") for up in box.iterancestors()):
            continue
        text = _paragraphs_text(box)
        if text:
            lines.append(f"Text box: {text}")
    return lines


def _footnote_lines(package: Any) -> list[str]:
    """Each footnote with its number; ids -1 and 0 are Word's separator lines, not notes."""
    from docx.oxml import parse_xml

    for part in package.iter_parts():
        if str(part.partname) == "/word/footnotes.xml":
            notes = parse_xml(part.blob)
            break
    else:
        return []
    lines = []
    for note in notes.iter(f"{{{_W}}}footnote"):
        number = note.get(f"{{{_W}}}id", "")
        if not number.isdigit() or int(number) < 1:
            continue
        text = _paragraphs_text(note)
        if text:
            lines.append(f"Footnote {number}: {text}")
    return lines


def _table_lines(table: Any) -> list[str]:
    """A row a line, its cells separated by " | "; a merged cell once, not once per column."""
    lines = []
    for row in table.rows:
        cells: list[Any] = []
        for cell in row.cells:
            if not cells or cell._tc is not cells[-1]._tc:
                cells.append(cell)
        texts = [" ".join(cell.text.split()) for cell in cells]
        if any(texts):
            lines.append(" | ".join(texts))
    return lines


def xlsx_text(data: bytes, caps: dict[str, int]) -> list[str]:
    """Each sheet a page: its name, then a line per row holding a value, "A1: value | B1: …"."""
    from openpyxl import load_workbook

    workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True, keep_vba=False)
    try:
        pages = []
        counts = {"cells": 0, "chars": 0}
        for sheet in workbook.worksheets:
            pages.append("\n".join(_sheet_lines(sheet, caps, counts)))
        return pages
    finally:
        workbook.close()


def _sheet_lines(sheet: Any, caps: dict[str, int], counts: dict[str, int]) -> Iterator[str]:
    # The dimension a sheet declares can lie (A1:XFD1048576), and openpyxl would pad every row
    # to it: forgotten, each row holds the cells its XML holds.
    sheet.reset_dimensions()
    yield sheet.title
    rows = 0
    for row in sheet.iter_rows():
        cells = [f"{cell.coordinate}: {_shown(cell.value)}" for cell in row if _has_value(cell)]
        if not cells:
            continue
        rows += 1
        counts["cells"] += len(cells)
        line = " | ".join(cells)
        counts["chars"] += len(line) + 1
        if rows > caps["max_rows"]:
            raise TooLarge(f"sheet {sheet.title!r} has over {caps['max_rows']:,} rows of values")
        if counts["cells"] > caps["max_cells"]:
            raise TooLarge(f"it has over {caps['max_cells']:,} cells with a value")
        if counts["chars"] > caps["max_chars"]:
            raise TooLarge(f"its text is over {caps['max_chars']:,} characters")
        yield line


def _has_value(cell: Any) -> bool:
    value = getattr(cell, "value", None)
    return value is not None and str(value).strip() != ""


def _shown(value: object) -> str:
    """A cell's value as a person reads it: 640 rather than 640.0, a date as 2026-01-20."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        return value.date().isoformat()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return " ".join(str(value).split())


def read_office(request: dict[str, Any], data: bytes) -> dict[str, Any]:
    """The reply for one file: its page texts, or an error code and message."""
    caps = {key: int(request[key]) for key in ("max_rows", "max_cells", "max_chars")}
    read = docx_text if request["kind"] == "docx" else xlsx_text
    try:
        return {"pages": read(data, caps)}
    except TooLarge as exc:
        return _error("too_large", str(exc))
    except MemoryError:
        return _error("memory", "it needs more memory than the reader may use")
    except Exception as exc:  # broken zips and XML raise many types; all mean the same here
        if _parser_out_of_memory(exc):
            return _error("memory", f"the XML parser ran out of memory ({exc})")
        return _error("unreadable", f"{type(exc).__name__}: {exc}")


def _parser_out_of_memory(exc: Exception) -> bool:
    """libxml2 reports a failed allocation as a syntax error: "Memory allocation failed", or,
    where even that message could not be made, "unknown error". Broken XML is named otherwise
    (a tag mismatch, a premature end)."""
    message = str(exc)
    return type(exc).__name__ == "XMLSyntaxError" and (
        "emory allocation failed" in message or message.startswith("unknown error")
    )


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def main(argv: list[str], stdin: BinaryIO, stdout: BinaryIO) -> None:
    cap = int(argv[0])
    if cap > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    sys.path.extend(folder for folder in argv[1:] if folder not in sys.path)
    warnings.simplefilter("ignore")
    # A stray print from a library must not corrupt the reply: it goes to stderr instead.
    sys.stdout = sys.stderr
    # openpyxl imports numpy where it is installed, only to know its number types, which a file
    # read here never holds; numpy's BLAS would take a share of the address space for nothing.
    sys.modules.setdefault("numpy", None)  # type: ignore[arg-type]
    import docx  # noqa: F401  # the slow part of starting, done before any file is waiting
    import openpyxl  # noqa: F401

    line = stdin.readline()
    if not line:
        return
    reply = read_office(json.loads(line), stdin.read())
    stdout.write(json.dumps(reply).encode("ascii"))
    stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:], sys.stdin.buffer, sys.stdout.buffer)
