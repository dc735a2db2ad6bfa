"""A webhook receiver that answers badly, for the sender's deadline and cap: a real HTTP server on
127.0.0.1 in a thread of the test, speaking HTTP/1.1 by hand so that it can answer as slowly
or as much as it likes.

It reads each request whole and counts it by webhook-id, then answers in one of three ways:

- "status": its status line and headers a byte at a time, TRICKLE_S apart (no status for
  seconds, though every single read is quick);
- "body": a 200 and its headers at once, then the body a byte at a time, TRICKLE_S apart;
- "huge": a 200 announcing a HUGE_BYTES body, written as fast as the client reads it.

It stops writing when the client goes away (its write fails) or when closed, and records how
many bytes of the answer it wrote and whether it wrote all of it.
"""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections import Counter
from collections.abc import Iterator
from types import TracebackType
from typing import Literal

Mode = Literal["status", "body", "huge"]

TRICKLE_S = 0.1
TRICKLED_BYTES = 60  # 6 s of trickle: over twice a test's shortened lease
HUGE_BYTES = 50 * 1024 * 1024
CHUNK = 64 * 1024
PATH = "/hooks/claims-crew"


class SlowReceiver:
    """`with SlowReceiver(mode) as receiver:` listens on a free port of 127.0.0.1 until the block
    ends; `receiver.url` is where to send."""

    def __init__(self, mode: Mode) -> None:
        self.mode = mode
        self.posts: Counter[str] = Counter()
        self.posted = threading.Event()  # set at the first request read whole
        self.answered = threading.Event()  # set when an answer's writing has ended
        self.written = 0
        self.whole = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{PATH}"

    def __enter__(self) -> SlowReceiver:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def _posted(self, msg_id: str) -> None:
        with self._lock:
            self.posts[msg_id] += 1
        self.posted.set()

    def answer(self, sock: socket.socket) -> None:
        """Write the mode's answer on `sock`, counting what was written."""
        trickle = TRICKLED_BYTES * b"."
        if self.mode == "status":
            head = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nx-slow: "
            pieces, pause, size = [*_bytes(head + trickle + b"\r\n\r\n")], TRICKLE_S, None
        elif self.mode == "body":
            head = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(trickle)
            pieces, pause, size = [head, *_bytes(trickle)], TRICKLE_S, None
        else:
            head = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % HUGE_BYTES
            pieces, pause, size = [head], 0.0, HUGE_BYTES
        try:
            for piece in _pieces(pieces, size):
                if self._stop.is_set():
                    return
                sock.sendall(piece)
                with self._lock:
                    self.written += len(piece)
                if pause:
                    time.sleep(pause)  # the receiver's pace, not a test's wait
            self.whole = True
        except OSError:
            return  # the client went away: what it read is counted
        finally:
            self.answered.set()


def _bytes(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def _pieces(first: list[bytes], body_size: int | None) -> Iterator[bytes]:
    """The pieces `first`, then `body_size` zero bytes in CHUNK-sized pieces, made as they go."""
    yield from first
    left = body_size or 0
    while left > 0:
        piece = bytes(min(CHUNK, left))
        left -= len(piece)
        yield piece


def _read_request(sock: socket.socket) -> tuple[dict[str, str], bytes] | None:
    """One request's headers (names lower-cased) and body; None when the client sent none."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    headers = {}
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        body += chunk
    return headers, body


def _handler(receiver: SlowReceiver) -> type[socketserver.BaseRequestHandler]:
    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            sock: socket.socket = self.request
            try:
                request = _read_request(sock)
            except OSError:
                return
            if request is None:
                return
            receiver._posted(request[0].get("webhook-id", ""))
            receiver.answer(sock)

    return Handler
