"""Children that read or draw documents: a fresh process per file.

Every PDF is read by its own child running pdf/reader.py as a script (`python -P`), so the
child never imports the caller's main module, a time limit can kill it, and nothing one file
does to pypdf's state reaches the next. Starting a child costs an interpreter and pypdf's import
(a few hundred ms of CPU), paid by every open that builds an index. A process that has opened
two files is likely to open more (a run over new wordings, a test session, a benchmark), so
from the second open on, the PDF text reader (pdf/reader_process.py) and the Office reader
(office/read.py) keep a fork server (forked_children.py): one interpreter that has imported the
script's libraries, forking a fresh child per file for a few ms. A one-off command opens one
file and starts no server; until a server is ready, a child is started here as before.

The page renderer (pdf/rendering.py) talks with its child page by page, so it keeps a spare
instead: from its second document on, the next child is started while this one draws, and
waits on stdin. The spare is used only for the same command line (the same interpreter, script
and sys.path), is forgotten by a forked copy of the process, and is killed at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from claims_crew.documents.forked_children import ForkedChild, ForkServers
from claims_crew.settings import current

# From this many documents drawn on, a spare renderer is kept ready.
SPARE_AFTER_OPENS = 2


@dataclass(frozen=True)
class Finished:
    """What a reader child left: its exit status and everything it wrote."""

    returncode: int
    stdout: bytes
    stderr: bytes


def timeout_from_env() -> float:
    """A reader child's time limit, a PDF's or an Office file's: CLAIMS_CREW_PDF_TIMEOUT seconds,
    else the default."""
    return float(current().claims_crew_pdf_timeout)


def script_command(script: Path, *arguments: str) -> list[str]:
    """This interpreter running `script` with `arguments`, then this process's sys.path.

    -P keeps the script's own folder and the working directory off the child's sys.path, so no
    file there can shadow a module the child imports; the child appends the folders given
    here after its own, so it finds pypdf (or pdfium) wherever this process would.
    """
    if not sys.executable:  # an embedding application may not know its interpreter
        raise OSError(f"no Python interpreter to run {script.stem} with (sys.executable is empty)")
    return [sys.executable, "-P", str(script), *arguments, *(f for f in sys.path if f)]


def _start(command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def stop_child(process: subprocess.Popen[bytes] | ForkedChild) -> None:
    """Kill a child and reap it; its pipes are closed when this returns."""
    process.kill()
    # An OSError: a forked child's server has gone, killing it too (forked_children.py).
    with contextlib.suppress(OSError):
        process.communicate()


class _Spares:
    """At most one idle reader child, and how many opens this process has made."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spare: tuple[list[str], subprocess.Popen[bytes]] | None = None
        self._opens = 0

    def take(self, command: list[str]) -> subprocess.Popen[bytes]:
        """The spare if it fits `command` and is alive, else a child started now."""
        with self._lock:
            spare, self._spare = self._spare, None
            self._opens += 1
        if spare is not None:
            spare_command, process = spare
            if spare_command == command and process.poll() is None:
                return process
            stop_child(process)
        return _start(command)

    def refill(self, command: list[str]) -> None:
        with self._lock:
            if self._spare is None and self._opens >= SPARE_AFTER_OPENS:
                self._spare = (command, _start(command))

    def close(self) -> None:
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            stop_child(spare[1])

    def forget(self) -> None:
        """In a forked copy: the spare belongs to the parent, and the lock may be mid-use."""
        self._lock = threading.Lock()
        self._spare = None
        self._opens = 0


def new_spares() -> _Spares:
    """A keeper of one idle child, killed at exit and forgotten by a forked copy."""
    spares = _Spares()
    atexit.register(spares.close)
    if hasattr(os, "register_at_fork"):  # POSIX only; elsewhere no process is forked
        os.register_at_fork(after_in_child=spares.forget)
    return spares


def run_child(command: list[str], servers: ForkServers, data: bytes, limit_s: float) -> Finished:
    """Give `data` to a child running `command` (forked by the fork server in `servers` where
    one is ready, else started now), and collect what it writes; as pdf/reader_process.py's
    run_reader, and the Office reader's."""
    process: subprocess.Popen[bytes] | ForkedChild = servers.fork(command, limit_s) or _start(
        command
    )
    try:
        stdout, stderr = process.communicate(data, timeout=limit_s)
    except BaseException:  # a timeout, or the caller interrupted: the child must not outlive it
        stop_child(process)
        raise
    assert process.returncode is not None  # communicate returns once the child has exited
    return Finished(process.returncode, stdout, stderr)
