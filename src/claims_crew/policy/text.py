"""Page-by-page text of a policy PDF, with pypdf, in a child process that a time limit can stop.

pypdf runs in a separate process because a hostile or broken file can make it loop for minutes,
and a Python thread cannot be interrupted; a process can. The forkserver start method keeps the
child clean even when the caller runs threads (CrewAI does), and preloading pypdf in the server
makes each child cheap to start.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import warnings
from multiprocessing.connection import Connection
from pathlib import Path

from claims_crew.errors import PolicyError

DEFAULT_TIMEOUT_S = 120.0
# A page of a real policy has hundreds of letters; a scan has none or a stray stamp.
MIN_LETTERS_PER_PAGE = 20

_context = multiprocessing.get_context("forkserver")
# "__main__" first, as CPython's default does: otherwise every child re-runs the caller's main
# module (the CLI, say) before it can start extracting.
_context.set_forkserver_preload(["__main__", "pypdf", "claims_crew.policy.text"])


def timeout_from_env() -> float:
    """The extraction time limit: CLAIMS_CREW_PDF_TIMEOUT seconds, else the default."""
    raw = os.environ.get("CLAIMS_CREW_PDF_TIMEOUT", "")
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if value > 0 else DEFAULT_TIMEOUT_S


def check_envelope(data: bytes, name: str) -> None:
    """Refuse bytes that cannot be a whole PDF before pypdf tries to repair them.

    pypdf rebuilds a lost cross-reference table and reads what it can, so a truncated file
    would otherwise index as a shorter policy with clauses silently missing.
    """
    if b"%PDF-" not in data[:1024]:
        raise PolicyError("malformed", f"{name}: not a PDF (no %PDF- header)")
    if b"%%EOF" not in data[-2048:]:
        raise PolicyError("malformed", f"{name}: truncated PDF (no %%EOF marker at the end)")


def _extract(path: str, conn: Connection) -> None:
    """Child process: send back ("ok", pages) or ("error", code, message)."""
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            # Many policies carry an owner password that only restricts printing; those open
            # with an empty user password and are readable.
            try:
                if not reader.decrypt(""):
                    raise FileNotDecryptedError("a password is required")
            except (FileNotDecryptedError, NotImplementedError, PdfReadError) as exc:
                conn.send(("error", "encrypted", f"encrypted PDF that needs a password ({exc})"))
                return
        pages = [page.extract_text() or "" for page in reader.pages]
    except FileNotDecryptedError as exc:
        conn.send(("error", "encrypted", f"encrypted PDF that needs a password ({exc})"))
    except Exception as exc:  # pypdf raises many types on broken files; all mean the same here
        conn.send(("error", "malformed", f"pypdf could not read it: {type(exc).__name__}: {exc}"))
    else:
        conn.send(("ok", pages))
    finally:
        conn.close()


def extract_pages(path: Path, data: bytes, timeout_s: float | None = None) -> list[str]:
    """Text of every page of the PDF at `path` (whose bytes are `data`), first page first.

    Raises PolicyError with code malformed, encrypted, no_text_layer or timeout.
    """
    check_envelope(data, path.name)
    limit = timeout_s if timeout_s is not None else timeout_from_env()
    receiver, sender = _context.Pipe(duplex=False)
    child = _context.Process(target=_extract, args=(str(path), sender), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(limit):
            raise PolicyError(
                "timeout", f"{path.name}: text extraction did not finish within {limit:g} s"
            )
        try:
            result = receiver.recv()
        except EOFError as exc:
            raise PolicyError("malformed", f"{path.name}: the PDF reader crashed") from exc
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join()
    if result[0] == "error":
        raise PolicyError(result[1], f"{path.name}: {result[2]}")
    pages: list[str] = result[1]
    if not pages:
        raise PolicyError("malformed", f"{path.name}: the PDF has no pages")
    letters = sum(ch.isalpha() for text in pages for ch in text)
    if letters < MIN_LETTERS_PER_PAGE * len(pages):
        raise PolicyError(
            "no_text_layer",
            f"{path.name}: no text layer ({letters} letters on {len(pages)} pages); "
            "it looks scanned and needs OCR before it can be indexed",
        )
    return pages
