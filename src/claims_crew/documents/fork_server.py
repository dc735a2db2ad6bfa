"""A fork server for document children: a script warmed up once, then forked fresh per file.

forked_children.py starts this file as a script (`python -P .../fork_server.py FD SCRIPT ARGS`),
so, like the children it forks, it imports only the standard library and what SCRIPT imports.
It runs SCRIPT once as `__main__` with nothing on stdin, which every document script takes as
"not needed" after importing its libraries (pypdf and lxml, pdfium, python-docx). Then, for
each file, it forks: the copy runs SCRIPT as `__main__` again, on the pipes the parent sent,
with the libraries already imported. A fork costs a few milliseconds where a fresh interpreter
and pypdf's import cost a few hundred, and every file still gets a process that has read no
other file.

Protocol over the SOCK_SEQPACKET socket FD, one message per packet:
- the parent sends `{"env": {...}, "cwd": "..."}` as JSON with three file descriptors (the
  child's stdin, stdout and stderr), or `kill PID`;
- this server says `ready` once SCRIPT has warmed up; `started PID` (or `failed WHY`) for each
  JSON request, in order; and `exited PID STATUS` when a child ends, STATUS as Popen's
  returncode (negative for a signal).
A child is killed only here, by the process that reaps it, so a pid never names a process
reused by someone else. When the parent's end closes, every child still running is killed and
the server exits.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import select
import signal
import socket
import sys
import traceback
from typing import Any, TextIO

_HELD: list[TextIO] = []
_SERVER_PID = os.getpid()
_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>


def _prctl() -> Any:
    """libc's prctl, on Linux; loaded before any fork."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl


_PRCTL = _prctl()


def _run_script(script: str) -> int:
    """SCRIPT as `__main__`, and the exit status a fresh interpreter would have ended with."""
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def _die_with(server: int) -> None:
    """Have Linux kill this child if the server dies first (killed itself, say): its parent
    then could no longer reap or kill it, and it would hold its pipes open. Elsewhere a child
    outlives a killed server until it finishes its file."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != server:  # the server died before the line above
            os._exit(1)


def _child(script: str, request: dict[str, Any], fds: list[int], keep_out: list[int]) -> None:
    """In the forked copy: take the sent pipes as stdin, stdout and stderr, run SCRIPT, exit."""
    _die_with(server=_SERVER_PID)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for fd in keep_out:
        os.close(fd)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])  # the parent's now, not as it was when this server started
    os.chdir(request["cwd"])
    # New stream objects on the new descriptors (the warm-up may have swapped sys.stdout), held
    # here too, as an interpreter holds its own in sys.__stdout__ and the rest, so that a script
    # replacing sys.stdout does not close the one it is writing its reply to.
    _HELD.extend(
        [
            open(0, closefd=False),  # noqa: SIM115
            open(1, "w", closefd=False),  # noqa: SIM115
            open(2, "w", closefd=False, buffering=1),  # noqa: SIM115
        ]
    )
    sys.stdin, sys.stdout, sys.stderr = _HELD
    code = _run_script(script)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _send(control: socket.socket, message: str) -> None:
    control.send(message.encode())


def serve(control: socket.socket, script: str) -> None:
    # The parent decides what an interrupt means; this server ends when the parent's end closes.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
    running: set[int] = set()
    _send(control, "ready")
    while True:
        readable, _, _ = select.select([control, wake_r], [], [])
        if wake_r in readable:
            os.read(wake_r, 4096)
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            running.discard(pid)
            _send(control, f"exited {pid} {os.waitstatus_to_exitcode(status)}")
        if control not in readable:
            continue
        message, fds, _, _ = socket.recv_fds(control, 1 << 20, 3)
        if not message:  # the parent has gone: nothing here may outlive it
            for pid in running:
                os.kill(pid, signal.SIGKILL)
            for pid in running:  # reaped here, not left as zombies for whatever init there is
                os.waitpid(pid, 0)
            return
        if message.startswith(b"kill "):
            pid = int(message.split()[1])
            if pid in running:  # not yet reaped, so still this server's child
                os.kill(pid, signal.SIGKILL)
            continue
        try:
            request = json.loads(message)
            if len(fds) != 3:
                raise ValueError(f"{len(fds)} file descriptors sent, not 3")
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
        except (OSError, ValueError) as exc:
            for fd in fds:
                os.close(fd)
            _send(control, f"failed {exc}")
            continue
        if pid == 0:
            _child(script, request, fds, [control.fileno(), wake_r, wake_w])
        for fd in fds:
            os.close(fd)
        running.add(pid)
        _send(control, f"started {pid}")


def main(argv: list[str]) -> None:
    control = socket.socket(fileno=int(argv[0]))
    script = argv[1]
    sys.argv = argv[1:]
    # The warm-up: the script imports what it needs, finds stdin empty and returns.
    code = _run_script(script)
    if code != 0:
        sys.exit(code)
    serve(control, script)


if __name__ == "__main__":
    main(sys.argv[1:])
