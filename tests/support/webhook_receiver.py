"""A real webhook receiver: http.server on 127.0.0.1 in a thread of the test, that can be down
(nothing listening: connection refused), answering 503, or up (204), and keeps every request
it answered 2xx, headers and body as received."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.browser import free_port


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """`url` is fixed from the start; `up()` starts listening there, `down()` stops."""

    port: int = field(default_factory=free_port)
    status: int = 204
    received: list[Received] = field(default_factory=list)
    refused: list[Received] = field(default_factory=list)  # answered with a non-2xx status
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def up(self, status: int = 204) -> Receiver:
        self.status = status
        if self._server is None:
            receiver = self

            class Handler(BaseHTTPRequestHandler):
                def do_POST(self) -> None:
                    length = int(self.headers.get("content-length", "0"))
                    got = Received(self.path, dict(self.headers.items()), self.rfile.read(length))
                    with receiver._lock:
                        ok = 200 <= receiver.status < 300
                        (receiver.received if ok else receiver.refused).append(got)
                    self.send_response(receiver.status)
                    self.send_header("content-length", "0")
                    self.end_headers()

                def log_message(self, format: str, *args: object) -> None:
                    return  # quiet: the test reads what was received instead

            ThreadingHTTPServer.allow_reuse_address = True
            self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
            threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def down(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
