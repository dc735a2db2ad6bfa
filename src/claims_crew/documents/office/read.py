"""Word documents and spreadsheets: paragraphs and tables, sheets as rows of cells.

A .docx or .xlsx is a zip of XML parts. Which it is comes from the part names in the zip's
central directory (word/document.xml, xl/workbook.xml), read by zipfile without inflating
anything; so do the sizes each part declares, which are checked against the caps in limits.py
before any part is decompressed: a zip bomb dressed as .docx is too_large from its directory
alone. The file is then read by python-docx or openpyxl in a child process of its own
(reader.py), started as the PDF reader's children are (child_process.py), under the
page renderer's address-space cap and the PDF reader's time limit: a part that lies about its
size, or XML that parses into gigabytes, kills that child, not the batch.

Macro-enabled files (.docm, .xlsm) are read as the others are, for their text: neither library
runs anything, the macro project is never read, and a formula's value is the one the
spreadsheet program saved, never computed here.
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import zipfile
from pathlib import Path
from typing import Any

from claims_crew.documents.child_process import (
    Finished,
    run_child,
    script_command,
    timeout_from_env,
)
from claims_crew.documents.forked_children import new_fork_servers
from claims_crew.documents.limits import (
    MAX_OFFICE_TEXT_CHARS,
    MAX_SHEET_ROWS,
    MAX_WORKBOOK_CELLS,
    MAX_ZIP_ENTRIES,
    MAX_ZIP_ENTRY_BYTES,
    MAX_ZIP_RATIO,
    MAX_ZIP_TOTAL_BYTES,
    ZIP_RATIO_FROM_BYTES,
    AttachmentError,
    ClaimBudget,
)
from claims_crew.documents.record import AttachmentKind, PageText, UnreadPart

OFFICE_SCRIPT = Path(__file__).resolve().with_name("reader.py")
# The part each kind has at its heart, by the names Word and Excel (and everyone since) give it.
_MAIN_PARTS: dict[str, AttachmentKind] = {"word/document.xml": "docx", "xl/workbook.xml": "xlsx"}
# An Office file saved with a password is no zip: an OLE compound file holding the zip encrypted.
_ENCRYPTED_STREAM = "EncryptedPackage"
# Declared types of what Office embeds, by the part's suffix (an OLE object is a .bin).
_EMBEDDED_TYPES = {
    ".bin": "application/vnd.openxmlformats-officedocument.oleObject",
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
_STDERR_TAIL = 400
# The end of central directory record: its signature, and how far from the end it may start (its
# 22 bytes and a comment of up to 64 KiB).
_END_OF_DIRECTORY = b"PK\x05\x06"
_END_RECORD_REACH = 22 + (1 << 16)
# A directory entry is 46 bytes and the part's name (Office names are under 100 characters).
_DIRECTORY_BYTES_PER_PART = 1 << 10
# What a child that ran out of its address space says on its way out (Python, libxml2).
_OUT_OF_MEMORY = (b"MemoryError", b"emory allocation failed")
_MIB = 1 << 20
_FORKS = new_fork_servers()


def _directory(name: str, data: bytes) -> list[zipfile.ZipInfo]:
    """The zip's central directory: names and declared sizes, nothing inflated; refused first
    when the directory's own end record declares more parts than the cap, or a directory larger
    than such parts could need, since zipfile would build an object for every one."""
    end = data.rfind(_END_OF_DIRECTORY, max(0, len(data) - _END_RECORD_REACH))
    if end >= 0 and len(data) >= end + 22:
        parts, size = struct.unpack_from("<HI", data, end + 10)
        # 0xFFFF parts: a zip64 directory, for more than any Office file has.
        if parts > MAX_ZIP_ENTRIES or size > MAX_ZIP_ENTRIES * _DIRECTORY_BYTES_PER_PART:
            raise AttachmentError(
                "too_large",
                f"{name}: its directory declares {parts:,} parts in {size:,} bytes; the cap is "
                f"{MAX_ZIP_ENTRIES:,} parts",
            )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise AttachmentError("unreadable", f"{name}: a broken zip archive: {exc}") from exc


def office_kind(name: str, data: bytes) -> AttachmentKind:
    """docx or xlsx, told from the zip's parts; unsupported_type for any other zip."""
    names = {info.filename for info in _directory(name, data)}
    for part, kind in _MAIN_PARTS.items():
        if part in names:
            return kind
    raise AttachmentError(
        "unsupported_type",
        f"{name}: a zip archive, but not a Word (.docx) or Excel (.xlsx) file; "
        "attach the files it holds one by one",
    )


def check_zip(name: str, data: bytes) -> None:
    """Refuse a zip whose directory declares more parts, or larger ones, than the caps allow,
    or a part encrypted: all before a byte is inflated."""
    entries = _directory(name, data)
    if len(entries) > MAX_ZIP_ENTRIES:
        raise AttachmentError(
            "too_large", f"{name} holds {len(entries):,} parts; the cap is {MAX_ZIP_ENTRIES:,}"
        )
    total = 0
    for info in entries:
        if info.flag_bits & 0x1:
            raise AttachmentError("encrypted", f"{name}: its part {info.filename} is encrypted")
        size = info.file_size
        total += size
        if size > MAX_ZIP_ENTRY_BYTES:
            raise AttachmentError(
                "too_large",
                f"{name}: its part {info.filename} inflates to {size:,} bytes; "
                f"the cap is {MAX_ZIP_ENTRY_BYTES // _MIB} MiB a part",
            )
        if size > ZIP_RATIO_FROM_BYTES and size > MAX_ZIP_RATIO * max(info.compress_size, 1):
            raise AttachmentError(
                "too_large",
                f"{name}: its part {info.filename} inflates {size // max(info.compress_size, 1):,}"
                f" times (a zip bomb); the cap is {MAX_ZIP_RATIO} times",
            )
    if total > MAX_ZIP_TOTAL_BYTES:
        raise AttachmentError(
            "too_large",
            f"{name}: its parts inflate to {total:,} bytes; the cap is "
            f"{MAX_ZIP_TOTAL_BYTES // _MIB} MiB",
        )


def refuse_encrypted_office(name: str, data: bytes) -> None:
    """An OLE compound file holding an encrypted Office file: encrypted, with what to do."""
    import olefile

    try:
        # A file object, never the bytes: olefile takes bytes shorter than 1,536 for a path.
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            encrypted = ole.exists(_ENCRYPTED_STREAM)
    except Exception:  # a broken compound file raises many types: it is refused as old-format
        return
    if encrypted:
        raise AttachmentError(
            "encrypted",
            f"{name}: an Office file saved with a password; attach a copy saved without one",
        )


def office_pages(
    name: str, data: bytes, kind: AttachmentKind, budget: ClaimBudget
) -> tuple[list[PageText], list[UnreadPart]]:
    """The document as one page, or the workbook a sheet a page; and the objects embedded in it
    (a PDF or a spreadsheet inside a Word file), which are not read and are named as such."""
    check_zip(name, data)
    limit = timeout_from_env()
    left = budget.time_for(name)
    if left is not None:
        limit = min(limit, left)
    request = {
        "kind": kind,
        "max_rows": MAX_SHEET_ROWS,
        "max_cells": MAX_WORKBOOK_CELLS,
        "max_chars": MAX_OFFICE_TEXT_CHARS,
    }
    memory = budget.render.memory_bytes
    command = script_command(OFFICE_SCRIPT, str(memory))
    message = json.dumps(request).encode("ascii") + b"\n" + data
    try:
        done = run_child(command, _FORKS, message, limit)
    except (subprocess.TimeoutExpired, OSError) as exc:
        raise _not_read(name, exc, limit) from exc
    texts = _texts(name, done, memory)
    budget.take_pages(name, len(texts))
    embedded = embedded_objects(name, data)
    if embedded and texts:
        # In the text of record too, where the intake agent and a person read the file.
        texts[0] = "\n".join([texts[0], *(part.line() for part in embedded)]).strip()
    pages = [PageText(number=n, text=text) for n, text in enumerate(texts, start=1)]
    return pages, embedded


def embedded_objects(name: str, data: bytes) -> list[UnreadPart]:
    """The files embedded in an Office file (word/embeddings/, xl/embeddings/): an OLE package
    may hold a PDF, a workbook or a picture that could decide the claim, and none is read here,
    so each is named on the record, and the claim goes to a person (resolver/gates.py)."""
    return [
        UnreadPart(
            name=f"{name}/{info.filename.rsplit('/', 1)[-1]}",
            content_type=_EMBEDDED_TYPES.get(
                Path(info.filename).suffix.lower(), "application/octet-stream"
            ),
            size=info.file_size,
            code="unsupported_type",
            reason="an object embedded in the Office file is not read",
        )
        for info in _directory(name, data)
        if info.filename.split("/")[1:2] == ["embeddings"] and not info.is_dir()
    ]


def _not_read(name: str, exc: Exception, limit: float) -> AttachmentError:
    """A child killed at its time limit (too_large: a file that takes longer to read is larger
    than any note or estimate), or one that never started."""
    if isinstance(exc, subprocess.TimeoutExpired):
        return AttachmentError("too_large", f"{name}: reading it did not finish within {limit:g} s")
    return AttachmentError("unreadable", f"{name}: the Office reader could not start: {exc}")


def _texts(name: str, done: Finished, memory: int) -> list[str]:
    """The page texts in the child's reply, or why there are none as an AttachmentError."""
    over_memory = AttachmentError(
        "too_large",
        f"{name}: reading it needs more than the {memory // _MIB:,} MiB the reader may use",
    )
    try:
        reply: Any = json.loads(done.stdout)
    except ValueError:
        reply = None
    if not isinstance(reply, dict) or done.returncode != 0:
        if done.returncode < 0 or any(sign in done.stderr for sign in _OUT_OF_MEMORY):
            raise over_memory
        tail = done.stderr.decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
        raise AttachmentError(
            "unreadable",
            f"{name}: the Office reader crashed (exit status {done.returncode}"
            f"{': ' + tail if tail else ''})",
        )
    error = reply.get("error")
    if isinstance(error, dict):
        if error.get("code") == "memory":
            raise over_memory
        if error.get("code") == "too_large":
            raise AttachmentError("too_large", f"{name}: {error.get('message')}")
        raise AttachmentError(
            "unreadable",
            f"{name}: not a Word or Excel file that can be read: {error.get('message')}",
        )
    pages = reply.get("pages")
    if not isinstance(pages, list) or not all(isinstance(text, str) for text in pages):
        raise AttachmentError("unreadable", f"{name}: the Office reader sent no text")
    return pages
