"""HTTP by hand over a socket, for what a client library will not do: send a request's head and
only part of its body, then read the answer while the rest is still owed."""

from __future__ import annotations

import socket
from dataclasses import dataclass

# Only a bound on a test that fails (a server waiting for the rest of a body): an answer that
# comes at all comes long before this, however slow the machine.
GIVE_UP_S = 120


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes
    closed: bool  # the server closed the connection after the answer


def open_request(
    port: int, path: str, headers: dict[str, str], host: str | None = None
) -> socket.socket:
    """A connection with a POST's head sent (to Host `host`, by default the page's own), its
    body still to come."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=GIVE_UP_S)
    lines = [f"POST {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    return sock


def send_chunk(sock: socket.socket, data: bytes) -> None:
    """One chunk of a chunked body (never the last, empty one)."""
    sock.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n")


def read_answer(sock: socket.socket) -> Answer:
    """The answer the server gives on `sock`, with whether it then closed the connection."""
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        data = sock.recv(65536)
        if not data:
            raise AssertionError(f"the connection closed before an answer: {buffer!r}")
        buffer += data
    head, _, body = buffer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        data = sock.recv(65536)
        if not data:
            break
        body += data
    return Answer(int(status_line.split()[1]), headers, body[:length], _closed(sock))


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def exchange(port: int, request_line: str, headers: dict[str, str]) -> Answer:
    """One bodiless request sent as written (`GET http://host/path HTTP/1.1` included), and
    the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=GIVE_UP_S) as sock:
        lines = [request_line, *(f"{name}: {value}" for name, value in headers.items())]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        return read_answer(sock)
