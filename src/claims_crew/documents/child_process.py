"""Children that read or draw documents: a fresh process per file.

Every PDF is read by its own child running pdf/reader.py as a script (`python -P`), so the
child never imports the caller's main module, a time limit can kill it, and nothing one file
does to pypdf's state reaches the next; so are a PDF's pages drawn (pdf/rendering.py) and an
Office file read (office/read.py), each by a script of its own. Starting a child costs an
interpreter and its libraries' import (a few hundred ms of CPU), paid by every file. A process
that has opened two files of a kind is likely to open more (a run over new wordings, a batch of
attachments, a test session), so from the second open on, each kind keeps a fork server
(forked_children.py): one interpreter that has imported the script's libraries, forking a fresh
child per file for a few ms. A one-off command opens one file and starts no server; until a
server is ready, a child is started here as before.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from claims_crew.documents.forked_children import ForkedChild, ForkServers
from claims_crew.settings import current


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


def open_child(
    command: list[str], servers: ForkServers, limit_s: float
) -> subprocess.Popen[bytes] | ForkedChild:
    """A child running `command`: forked by the fork server in `servers` where one is ready,
    else started now (and a server started for later opens, from the second on)."""
    return servers.fork(command, limit_s) or _start(command)


def run_child(command: list[str], servers: ForkServers, data: bytes, limit_s: float) -> Finished:
    """Give `data` to a child running `command` (open_child's: forked or started), and collect
    what it writes; as pdf/reader_process.py's run_reader, and the Office reader's."""
    process = open_child(command, servers, limit_s)
    try:
        stdout, stderr = process.communicate(data, timeout=limit_s)
    except BaseException:  # a timeout, or the caller interrupted: the child must not outlive it
        stop_child(process)
        raise
    assert process.returncode is not None  # communicate returns once the child has exited
    return Finished(process.returncode, stdout, stderr)
