"""The PDF reader process: the page texts of the PDF on stdin, as one JSON object on stdout.

reader_process.py starts this file as a script in a fresh interpreter (`python -P
.../pdf/reader.py`), so the child imports only the standard library, pypdf and lxml: never the
caller's main module, never the rest of claims_crew. That keeps a script without an
`if __name__ == "__main__":` guard working, and keeps start-up to the cost of importing pypdf,
which is done before stdin is read: a fork server (documents/fork_server.py) runs this file
once with an empty stdin to import them, then forks a copy per PDF that finds them imported.

Protocol, kept small so the parent can check it:
- argv[1:]: `--form-caps=FIELDS,CHARS,TOTAL` (the caps on a form: its fields, a value's
  characters, all its lines' characters), then folders from the parent's sys.path, appended
  after the child's own, so that pypdf is found where the parent would find it without anything
  of the parent's shadowing the stdlib;
- stdin: the PDF's bytes (the very bytes the parent hashed, so the index matches its file);
  nothing at all means the child is not needed, and it exits without a word;
- stdout: `{"pages": [text, ...], "fields": [[line, ...], ...]}` (a page's filled form fields
  as `Label: value` lines, form_fields.py) and `"unread": [{"size": n, "reason": why}, ...]`
  (the XFA datasets packets not read whole, xfa.py) or, for a form over its caps,
  `"fields_refused": message` in place of both; or `{"error": {"code": ..., "message": ...}}`,
  where code is "encrypted" or "malformed". Anything else (no JSON, a signal) the parent
  reports as a crash. The parent takes a reply without "fields" as a PDF without a form.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import json
import logging
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, BinaryIO

FORM_CAPS_OPTION = "--form-caps="
# Without the option (a reader started by hand): generous caps, the parent's are smaller.
_DEFAULT_FORM_CAPS = (10_000, 100_000, 10_000_000)


@functools.cache
def _form_fields() -> ModuleType:
    """form_fields.py, loaded by its path: this script runs outside the package (see above)."""
    path = Path(__file__).with_name("form_fields.py")
    spec = importlib.util.spec_from_file_location("claims_crew_form_fields", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_pages(data: bytes, form_caps: tuple[int, int, int] = _DEFAULT_FORM_CAPS) -> dict[str, Any]:
    """The reply for one PDF: its page texts and form fields, or an error code and message."""
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            # Many policies carry an owner password that only restricts printing; those open
            # with an empty user password and are readable.
            try:
                if not reader.decrypt(""):
                    raise FileNotDecryptedError("a password is required")
            except (FileNotDecryptedError, NotImplementedError, PdfReadError) as exc:
                return _error("encrypted", f"encrypted PDF that needs a password ({exc})")
        pages = [page.extract_text() or "" for page in reader.pages]
        reply: dict[str, Any] = {"pages": pages}
        forms = _form_fields()
        try:
            lines = forms.form_lines(reader, *form_caps)
            reply["fields"] = lines.pages
            reply["unread"] = [{"size": size, "reason": why} for size, why in lines.unread]
        except forms.FormTooLarge as exc:
            reply["fields_refused"] = str(exc)
    except FileNotDecryptedError as exc:
        return _error("encrypted", f"encrypted PDF that needs a password ({exc})")
    except Exception as exc:  # pypdf raises many types on broken files; all mean the same here
        return _error("malformed", f"pypdf could not read it: {type(exc).__name__}: {exc}")
    return reply


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def _caps(argv: list[str]) -> tuple[tuple[int, int, int], list[str]]:
    """The form caps given as the first argument, and the folders after them."""
    if argv and argv[0].startswith(FORM_CAPS_OPTION):
        fields, chars, total = (int(n) for n in argv[0][len(FORM_CAPS_OPTION) :].split(","))
        return (fields, chars, total), argv[1:]
    return _DEFAULT_FORM_CAPS, argv


def main(argv: list[str], stdin: BinaryIO, stdout: BinaryIO) -> None:
    form_caps, folders = _caps(argv)
    sys.path.extend(folder for folder in folders if folder not in sys.path)
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")
    # A stray print from a library must not corrupt the reply: it goes to stderr instead.
    sys.stdout = sys.stderr
    import pypdf  # noqa: F401  # the slow part of starting, done before any PDF is waiting

    _form_fields()._xfa()  # lxml too, which an XFA form needs

    data = stdin.read()
    if not data:
        return
    reply = read_pages(data, form_caps)
    # ASCII JSON carries any string pypdf returns, lone surrogates included.
    stdout.write(json.dumps(reply).encode("ascii"))
    stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:], sys.stdin.buffer, sys.stdout.buffer)
