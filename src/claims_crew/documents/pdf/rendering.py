"""PDF pages drawn in a child process, under a memory cap and a time limit.

A page's size on disk says nothing of what drawing it costs: a page of a few kilobytes can draw a
Form XObject that draws the next twice, twenty levels down, and pdfium then holds and paints
millions of copies, for gigabytes and minutes. In the process that asked, nothing could stop
that: a Python thread cannot be interrupted, and pdfium's failed allocation aborts the whole
process (a batch of claims, the review page). So every PDF page is drawn by a child running
page_renderer.py, started by child_process.py as the PDF text reader's children are (a
fresh `python -P` interpreter that never imports the caller, or from a process's second
document on a fork of a server that imported pdfium once). The child caps its own address
space; the parent kills it when a page takes longer than its limit. Either way only that
child dies, and the page is refused with the limit it went over.

One child draws one document, page after page, so a scanned claim of twenty pages starts one
interpreter, not twenty. The child has a pdfium of its own, so the caller holds no lock while
it draws, and two reviewers' page images are drawn side by side.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from PIL import Image

from claims_crew.documents.child_process import open_child, script_command, stop_child
from claims_crew.documents.forked_children import ForkedChild, new_fork_servers
from claims_crew.documents.limits import RenderLimits

RENDERER_SCRIPT = Path(__file__).resolve().with_name("page_renderer.py")
RenderProblem = Literal["memory", "time", "unreadable"]

_FORKS = new_fork_servers()
# How much of the child's stderr a crash message quotes.
_STDERR_TAIL = 400
_MIB = 1 << 20


class RenderError(Exception):
    """A page not drawn: over the memory cap (`memory`), over the time limit (`time`), or a
    file pdfium cannot open or draw (`unreadable`); the message names the limit and its number."""

    def __init__(self, code: RenderProblem, message: str) -> None:
        super().__init__(message)
        self.code: RenderProblem = code


class PdfRenderer:
    """One child drawing the pages of one PDF, in turn, for as long as the `with` block lasts.

    `seconds`, here and in `draw`, is what is left of a deadline the caller has (a claim's), and
    shortens the limit when it is less. Raises RenderError, or OSError where no child starts.
    """

    def __init__(
        self, name: str, data: bytes, limits: RenderLimits, seconds: float | None = None
    ) -> None:
        self.name = name
        self.limits = limits
        command = script_command(RENDERER_SCRIPT, str(limits.memory_bytes))
        self._process = open_child(command, _FORKS, limits.seconds)
        try:
            reply, _ = self._exchange({"pdf": len(data)}, data, f"{name}: opening it", seconds)
            self.sizes = [(float(width), float(height)) for width, height in reply["sizes"]]
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> PdfRenderer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self._process.pid

    def close(self) -> None:
        stop_child(self._process)

    def draw(
        self, number: int, scale: float, grey: bool, seconds: float | None = None
    ) -> Image.Image:
        """Page `number` (1-based) at `scale` (pixels per point), in grey ("L") or "RGB"."""
        request = {"page": number, "scale": scale, "grey": grey}
        reply, pixels = self._exchange(request, b"", f"{self.name} page {number}", seconds)
        return Image.frombytes(reply["mode"], (reply["width"], reply["height"]), pixels)

    def _exchange(
        self, request: dict[str, Any], payload: bytes, what: str, seconds: float | None
    ) -> tuple[dict[str, Any], bytes]:
        """Send one request and read its reply, killing the child at the time limit."""
        limit = (
            self.limits.seconds if seconds is None else max(0.0, min(seconds, self.limits.seconds))
        )
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            self._process.kill()

        timer = threading.Timer(limit, expire)
        timer.start()
        try:
            reply, pixels = _talk(self._process, request, payload)
        finally:
            timer.cancel()
        if expired.is_set():
            whose = (
                "the time left before the claim's deadline"
                if limit < self.limits.seconds
                else "the limit per page"
            )
            raise RenderError(
                "time", f"{what}: drawing did not finish within {limit:g} s ({whose})"
            )
        if reply is None:
            raise self._died(what)
        if reply.get("error") == "memory":
            raise self._over_memory(what, "it ran out")
        if "error" in reply:
            raise RenderError(
                "unreadable", f"{what}: pdfium cannot draw it: {reply.get('message')}"
            )
        return reply, pixels

    def _over_memory(self, what: str, how: str) -> RenderError:
        cap = self.limits.memory_bytes // _MIB
        return RenderError(
            "memory",
            f"{what}: drawing it needs more than the {cap:,} MiB a page may use "
            f"(the renderer stopped: {how})",
        )

    def _died(self, what: str) -> RenderError:
        """Why the child stopped answering: its allocation failed at the cap (pdfium aborts,
        a signal), or it broke otherwise (an exit status, with the end of what it said)."""
        self._process.kill()
        _, stderr = self._process.communicate()  # reaps it, with what it said on the way out
        status = self._process.returncode
        if status is not None and status < 0 and self.limits.memory_bytes > 0:
            name = signal.Signals(-status).name if -status in signal.valid_signals() else -status
            return self._over_memory(what, f"{name}")
        tail = stderr.decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
        return RenderError(
            "unreadable",
            f"{what}: the renderer crashed (exit status {status}{': ' + tail if tail else ''})",
        )


def _talk(
    process: subprocess.Popen[bytes] | ForkedChild, request: dict[str, Any], payload: bytes
) -> tuple[dict[str, Any] | None, bytes]:
    """One request written and its reply read; (None, b"") where the child died or sent
    something that is no reply."""
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(json.dumps(request).encode("ascii") + b"\n" + payload)
        process.stdin.flush()
        line = process.stdout.readline()
        reply = json.loads(line) if line else None
        if not isinstance(reply, dict):
            return None, b""
        size = int(reply.get("bytes", 0))
        pixels = process.stdout.read(size)
    except (OSError, ValueError):
        return None, b""
    return (reply, pixels) if len(pixels) == size else (None, b"")
