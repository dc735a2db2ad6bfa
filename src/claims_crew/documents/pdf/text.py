"""Page-by-page text of a PDF, with pypdf, in a child process that a time limit can stop.

pypdf runs in a separate process because a hostile or broken file can make it loop for minutes,
and a Python thread cannot be interrupted; a process can. The child is a fresh interpreter
running reader.py as a script (reader_process.py starts it): unlike a multiprocessing child
it never imports the caller's main module, so any caller can open a PDF, a script without an
`if __name__ == "__main__":` guard included, and threads in the caller (CrewAI runs some) cannot
leak into it. This module checks what goes in and turns what comes back into pages or a typed
error. Claim attachments (read.py) and policy wordings (policy/library.py) are both read here,
so both kinds of PDF share one reader and its limits. A filled form's field values come back
with the pages; only attachments take them (read_pdf_layer): a policy wording's text and index
are its text layer alone (read_text_layer).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Literal, NamedTuple

from claims_crew.documents.child_process import timeout_from_env
from claims_crew.documents.pdf.reader_process import run_reader

# A page of a real document has hundreds of letters; a scan has none or a stray stamp.
MIN_LETTERS_PER_PAGE = 20

PdfTextProblem = Literal["encrypted", "malformed", "timeout"]
# The codes the reader may send; anything else from it is treated as a crash.
_READER_CODES: dict[str, PdfTextProblem] = {"encrypted": "encrypted", "malformed": "malformed"}
# How much of the reader's stderr a crash message quotes.
_STDERR_TAIL = 400


class PdfTextError(Exception):
    """A PDF whose text layer could not be read: `encrypted` (it needs a password), `malformed`
    (not a whole PDF, or the reader crashed or could not start) or `timeout` (the reader ran past
    its limit and was killed); the message names the file and says why for a person."""

    def __init__(self, code: PdfTextProblem, message: str) -> None:
        super().__init__(message)
        self.code: PdfTextProblem = code


def check_envelope(data: bytes, name: str) -> None:
    """Refuse bytes that cannot be a whole PDF before pypdf tries to repair them.

    pypdf rebuilds a lost cross-reference table and reads what it can, so a truncated file
    would otherwise index as a shorter policy with clauses silently missing.
    """
    if b"%PDF-" not in data[:1024]:
        raise PdfTextError("malformed", f"{name}: not a PDF (no %PDF- header)")
    if b"%%EOF" not in data[-2048:]:
        raise PdfTextError("malformed", f"{name}: truncated PDF (no %%EOF marker at the end)")


def _read(path: Path, data: bytes, limit: float) -> dict[str, Any]:
    """Run the reader on `data`; its decoded reply, or PdfTextError for a timeout or a crash."""
    try:
        done = run_reader(data, limit)
    except subprocess.TimeoutExpired as exc:
        raise PdfTextError(
            "timeout", f"{path.name}: text extraction did not finish within {limit:g} s"
        ) from exc
    except OSError as exc:
        raise PdfTextError(
            "malformed", f"{path.name}: the PDF reader could not start: {exc}"
        ) from exc
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        reply = None
    if done.returncode != 0 or not isinstance(reply, dict):
        stderr = done.stderr.decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
        detail = f" (exit status {done.returncode}{': ' + stderr if stderr else ''})"
        raise PdfTextError("malformed", f"{path.name}: the PDF reader crashed{detail}")
    return reply


def _pages_of(path: Path, reply: dict[str, Any]) -> list[str]:
    """The page texts in a reader's reply, or its error as a PdfTextError."""
    error = reply.get("error")
    if isinstance(error, dict):
        code = _READER_CODES.get(str(error.get("code")), "malformed")
        raise PdfTextError(code, f"{path.name}: {error.get('message')}")
    pages = reply.get("pages")
    if not isinstance(pages, list) or not all(isinstance(text, str) for text in pages):
        raise PdfTextError("malformed", f"{path.name}: the PDF reader sent no page texts")
    return pages


def _fields_of(path: Path, reply: dict[str, Any], count: int) -> list[list[str]]:
    """Each page's filled form fields in a reader's reply ([] for each without a form, for a
    form refused, or from a reader that sends none)."""
    fields = reply.get("fields", [[] for _ in range(count)])
    if (
        not isinstance(fields, list)
        or len(fields) != count
        or not all(isinstance(lines, list) for lines in fields)
        or not all(isinstance(line, str) for lines in fields for line in lines)
    ):
        raise PdfTextError("malformed", f"{path.name}: the PDF reader sent no form fields")
    return fields


class XfaNotRead(NamedTuple):
    """An XFA datasets packet the reader could not read whole: its decoded size and why."""

    size: int
    reason: str


class PdfLayer(NamedTuple):
    """A PDF's text layer and its filled form fields (`Label: value` lines), page by page;
    `form_refused` says why a form past its caps was not read (its fields are then empty);
    `xfa_unread`, the XFA packets not read whole."""

    pages: list[str]
    fields: list[list[str]]
    form_refused: str | None = None
    xfa_unread: tuple[XfaNotRead, ...] = ()


def _unread_of(path: Path, reply: dict[str, Any]) -> tuple[XfaNotRead, ...]:
    """The reader's notes of XFA packets not read whole ([] from a reader that sends none)."""
    notes = reply.get("unread", [])
    if not isinstance(notes, list) or not all(
        isinstance(note, dict)
        and isinstance(note.get("size"), int)
        and isinstance(note.get("reason"), str)
        for note in notes
    ):
        raise PdfTextError("malformed", f"{path.name}: the PDF reader sent a bad unread list")
    return tuple(XfaNotRead(max(note["size"], 0), note["reason"]) for note in notes)


def read_pdf_layer(path: Path, data: bytes, timeout_s: float | None = None) -> PdfLayer:
    """The text layer of every page ("" on a scanned page) and the filled form fields on each.

    Raises PdfTextError with code malformed, encrypted or timeout.
    """
    reply, pages = _reply(path, data, timeout_s)
    refused = reply.get("fields_refused")
    if refused is not None:
        return PdfLayer(pages, [[] for _ in pages], f"{path.name}: {refused}")
    return PdfLayer(pages, _fields_of(path, reply, len(pages)), xfa_unread=_unread_of(path, reply))


def read_text_layer(path: Path, data: bytes, timeout_s: float | None = None) -> list[str]:
    """The text layer of every page, as the reader child found it ("" on a scanned page): a
    policy wording's text, which its form fields, if any, never join.

    Raises PdfTextError with code malformed, encrypted or timeout.
    """
    return _reply(path, data, timeout_s)[1]


def _reply(path: Path, data: bytes, timeout_s: float | None) -> tuple[dict[str, Any], list[str]]:
    """The reader's reply on a whole PDF, and the page texts in it (at least one)."""
    check_envelope(data, path.name)
    limit = timeout_s if timeout_s is not None else timeout_from_env()
    reply = _read(path, data, limit)
    pages = _pages_of(path, reply)
    if not pages:
        raise PdfTextError("malformed", f"{path.name}: the PDF has no pages")
    return reply, pages
