"""Document children forked from a warm fork server (fork_server.py), the parent's side.

A process that has opened two files of a kind is likely to open more (a run over new wordings,
a batch of attachments, a test session), so from the second open on it keeps a fork server for
that kind's script: one interpreter that has imported the script's libraries and forks a fresh
child per file. Until the server says it is ready, and whenever it cannot fork, the caller
starts a child of its own as before (child_process.py), so a file is never left waiting on it.

A forked child is driven like a Popen: its pipes as files (the page renderer talks to its child
page by page), `communicate(data, timeout)`, `kill()`, `returncode`.
Its exit status comes from the server, which reaps it and is the only one to kill it. A server
is used only for the same command line, is forgotten by a forked copy of this process, and is
closed at exit, which kills whatever children it still runs.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import IO

FORK_SERVER_SCRIPT = Path(__file__).resolve().with_name("fork_server.py")
# From this many opens on, a fork server is kept for the script.
SERVER_AFTER_OPENS = 2
_CHUNK = 1 << 16


class _Server:
    """One fork server process and the listener that reads what it says."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [command[0], "-P", str(FORK_SERVER_SCRIPT), str(theirs.fileno()), *command[2:]],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=[theirs.fileno()],
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._socket = ours
        self._ready = threading.Event()
        self._sending = threading.Lock()  # one request answered at a time, so replies pair up
        self._condition = threading.Condition()
        self._replies: list[str] = []
        self._exits: dict[int, int] = {}
        self.ended = False  # its socket closed: it exited, or was closed here
        self.confused = False  # a reply came late, so the next one could be paired wrongly
        threading.Thread(target=self._listen, name="fork server listener", daemon=True).start()

    def _listen(self) -> None:
        while True:
            try:
                message = self._socket.recv(4096).decode()
            except OSError:
                message = ""
            with self._condition:
                if not message:
                    self.ended = True
                    self._condition.notify_all()
                    return
                word, _, rest = message.partition(" ")
                if word == "ready":
                    self._ready.set()
                elif word == "exited":
                    pid, status = rest.split()
                    self._exits[int(pid)] = int(status)
                else:  # "started PID" or "failed WHY", for the request being answered
                    self._replies.append(message)
                self._condition.notify_all()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    @property
    def gone(self) -> bool:
        """Exited, or cannot be trusted to pair replies any more: a new one is needed."""
        return self.ended or self.confused or self.process.poll() is not None

    def fork(self, limit_s: float) -> ForkedChild | None:
        """A fresh child of the server on new pipes, or None while it is not ready or cannot
        fork (the caller then starts a child of its own)."""
        if self.ended or self.confused or not self._ready.is_set():
            return None
        request = json.dumps({"env": dict(os.environ), "cwd": os.getcwd()}).encode()
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        ours, theirs = [stdin_w, stdout_r, stderr_r], [stdin_r, stdout_w, stderr_w]
        reply = None
        try:
            with self._sending:
                try:
                    socket.send_fds(self._socket, [request], theirs)
                    reply = self._reply(limit_s)
                except BaseException:  # a reply left unread would be paired with the next
                    self.confused = True
                    raise
        except OSError:
            pass  # read by a child started plainly, and a new server started for later
        finally:
            for fd in theirs:
                os.close(fd)
            if reply is None or not reply.startswith("started "):
                for fd in ours:
                    os.close(fd)
        if reply is None or not reply.startswith("started "):
            return None
        return ForkedChild(self, int(reply.split()[1]), stdin_w, stdout_r, stderr_r)

    def _reply(self, limit_s: float) -> str | None:
        with self._condition:
            self._condition.wait_for(lambda: self._replies or self.ended, limit_s)
            if not self._replies:
                self.confused = not self.ended
                return None
            return self._replies.pop(0)

    def kill(self, pid: int) -> None:
        # An OSError: the server has gone, and killed its children as it went.
        with contextlib.suppress(OSError):
            self._socket.send(f"kill {pid}".encode())

    def exit_status(self, pid: int, deadline: float | None) -> int | None:
        """The child's exit status once the server has reaped it; None if it has not by
        `deadline`. Raises OSError when the server ends without saying."""
        with self._condition:
            while pid not in self._exits:
                if self.ended:
                    raise OSError(f"the fork server ended before child {pid}'s exit was known")
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._condition.wait(left)
            return self._exits.pop(pid)

    def close(self) -> None:
        """Close our end: the server kills its children and exits."""
        # Shut down, not only closed, so that the listener's pending recv returns too.
        with contextlib.suppress(OSError):  # already gone
            self._socket.shutdown(socket.SHUT_RDWR)
        self._socket.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def drop(self) -> None:
        """In a forked copy of this process: the server is the parent's; only close our copy
        of its socket, so that it still sees its parent leave."""
        self._socket.close()


class ForkedChild:
    """A child of a fork server, with what subprocess.Popen offers that the documents' callers
    use: its pipes as buffered files, `communicate`, `kill`, `pid` and `returncode`."""

    def __init__(self, server: _Server, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._server = server
        self.stdin: IO[bytes] | None = open(stdin, "wb")  # noqa: SIM115  # closed by communicate
        self.stdout: IO[bytes] = open(stdout, "rb")  # noqa: SIM115
        self.stderr: IO[bytes] = open(stderr, "rb")  # noqa: SIM115
        self._output: dict[IO[bytes], bytearray] = {
            self.stdout: bytearray(),
            self.stderr: bytearray(),
        }
        self._reading: set[IO[bytes]] = {self.stdout, self.stderr}

    def kill(self) -> None:
        if self.returncode is None:
            self._server.kill(self.pid)

    def communicate(self, data: bytes = b"", timeout: float | None = None) -> tuple[bytes, bytes]:
        """Write `data` to the child's stdin and close it, read its stdout and stderr to their
        end and wait for its exit, as Popen.communicate (which also reads the descriptors, past
        anything a caller's readline left buffered); may be called again after a timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            if self.stdin is not None:
                with contextlib.suppress(BrokenPipeError):  # what the child says comes next
                    self.stdin.flush()
                if data:
                    os.set_blocking(self.stdin.fileno(), False)
                    selector.register(self.stdin, selectors.EVENT_WRITE, memoryview(data))
                else:
                    self._close_stdin()
            for file in self._reading:
                selector.register(file, selectors.EVENT_READ)
            while selector.get_map():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise subprocess.TimeoutExpired(f"forked child {self.pid}", timeout or 0)
                for key, _ in selector.select(left):
                    self._step(selector, key)
        if self.returncode is None:
            self.returncode = self._server.exit_status(self.pid, deadline)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(f"forked child {self.pid}", timeout or 0)
        return bytes(self._output[self.stdout]), bytes(self._output[self.stderr])

    def _step(self, selector: selectors.BaseSelector, key: selectors.SelectorKey) -> None:
        file: IO[bytes] = key.fileobj  # type: ignore[assignment]
        fd = key.fd
        if file is self.stdin:
            left: memoryview = key.data
            try:
                written = os.write(fd, left[:_CHUNK])
            except BrokenPipeError:  # the child stopped reading: what it says comes next
                written = len(left)
            if written < len(left):
                selector.modify(file, selectors.EVENT_WRITE, left[written:])
                return
            selector.unregister(file)
            self._close_stdin()
            return
        chunk = os.read(fd, _CHUNK)
        if chunk:
            self._output[file] += chunk
            return
        selector.unregister(file)
        self._reading.discard(file)
        file.close()

    def _close_stdin(self) -> None:
        if self.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self.stdin.close()
            self.stdin = None


class ForkServers:
    """At most one fork server (for the last command line used), and how many opens this
    process has made."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._opens = 0
        # A command whose server ended before it was ready (its script failed to warm up):
        # another would fail the same way, so its files are read by children started plainly.
        self._refused: list[str] | None = None

    def fork(self, command: list[str], limit_s: float) -> ForkedChild | None:
        """A child forked for `command`, or None: the caller starts one of its own. From the
        second open on, a server for `command` is started, to warm up while this file is read."""
        with self._lock:
            self._opens += 1
            server = self._server
            stale = server is not None and (server.command != command or server.gone)
            if stale:
                self._server = None
        if stale and server is not None:
            if server.gone and not server.ready:
                self._refused = server.command
            server.close()
            server = None
        child = server.fork(limit_s) if server is not None else None
        with self._lock:
            if (
                self._server is None
                and self._opens >= SERVER_AFTER_OPENS
                and command != self._refused
            ):
                # An OSError: no SOCK_SEQPACKET here, or no process to spare; start plainly.
                with contextlib.suppress(OSError):
                    self._server = _Server(command)
        return child

    def close(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.close()

    def forget(self) -> None:
        """In a forked copy: the server belongs to the parent, and the lock may be mid-use."""
        if self._server is not None:
            self._server.drop()
        self._lock = threading.Lock()
        self._server = None
        self._opens = 0
        self._refused = None


def new_fork_servers() -> ForkServers:
    """A keeper of one fork server, closed at exit and forgotten by a forked copy."""
    servers = ForkServers()
    atexit.register(servers.close)
    if hasattr(os, "register_at_fork"):  # POSIX only; elsewhere no process is forked
        os.register_at_fork(after_in_child=servers.forget)
    return servers
