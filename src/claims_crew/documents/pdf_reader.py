"""The PDF reader process: the page texts of the PDF on stdin, as one JSON object on stdout.

reader_process.py starts this file as a script in a fresh interpreter (`python -P
.../pdf_reader.py`), so the child imports only the standard library and pypdf: never the
caller's main module, never the rest of claims_crew. That keeps a script without an
`if __name__ == "__main__":` guard working, and keeps start-up to the cost of importing pypdf,
which is done before stdin is read so that a spare child is ready when its PDF comes.

Protocol, kept small so the parent can check it:
- argv[1:]: folders from the parent's sys.path, appended after the child's own, so that pypdf is
  found where the parent would find it without anything of the parent's shadowing the stdlib;
- stdin: the PDF's bytes (the very bytes the parent hashed, so the index matches its file);
  nothing at all means the child is not needed, and it exits without a word;
- stdout: `{"pages": [text, ...]}` or `{"error": {"code": ..., "message": ...}}`, where code is
  "encrypted" or "malformed". Anything else (no JSON, a signal) the parent reports as a crash.
"""

from __future__ import annotations

import io
import json
import logging
import sys
import warnings
from typing import Any, BinaryIO


def read_pages(data: bytes) -> dict[str, Any]:
    """The reply for one PDF: its page texts, or an error code and message."""
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
    except FileNotDecryptedError as exc:
        return _error("encrypted", f"encrypted PDF that needs a password ({exc})")
    except Exception as exc:  # pypdf raises many types on broken files; all mean the same here
        return _error("malformed", f"pypdf could not read it: {type(exc).__name__}: {exc}")
    return {"pages": pages}


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def main(argv: list[str], stdin: BinaryIO, stdout: BinaryIO) -> None:
    sys.path.extend(folder for folder in argv if folder not in sys.path)
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")
    # A stray print from a library must not corrupt the reply: it goes to stderr instead.
    sys.stdout = sys.stderr
    import pypdf  # noqa: F401  # the slow part of starting, done before any PDF is waiting

    data = stdin.read()
    if not data:
        return
    reply = read_pages(data)
    # ASCII JSON carries any string pypdf returns, lone surrogates included.
    stdout.write(json.dumps(reply).encode("ascii"))
    stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:], sys.stdin.buffer, sys.stdout.buffer)
