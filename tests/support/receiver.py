"""A claims system's webhook endpoint, for real: an HTTP server on 127.0.0.1 in a thread of the
test, which checks each delivery's Standard Webhooks signature with its own few lines (not the
sender's code, so a sender that signs wrongly is caught) and counts what it was sent.

It can be down in the two ways a receiver is: not listening at all (the sender's connection is
refused; `listen()` later opens the same port), and up but answering 503 to the next N
deliveries (`unavailable(n)`). It keeps each accepted delivery's headers and body as received,
so a test can check them against what the store fixed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.browser import free_port

TOLERANCE_S = 300  # Standard Webhooks: refuse a timestamp further than five minutes off


def new_secret() -> str:
    """A signing secret as Standard Webhooks writes one: "whsec_" + base64 of random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def signature_ok(secret: str, headers: Mapping[str, str], body: bytes) -> bool:
    """HMAC-SHA256 over "{id}.{timestamp}.{body}" with the secret's decoded bytes, base64; the
    header lists one or more "v1,<base64>" separated by spaces, and one must match. The
    timestamp must be within TOLERANCE_S of now (a replayed delivery is refused)."""
    msg_id, stamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not msg_id or not stamp.isdigit() or abs(time.time() - int(stamp)) > TOLERANCE_S:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
    expected = base64.b64encode(digest).decode()
    given = [s.partition(",")[2] for s in headers.get("webhook-signature", "").split()]
    return any(hmac.compare_digest(expected, g) for g in given)


@dataclass(frozen=True)
class Request:
    """One accepted delivery as it arrived: header names lower-cased, the body's bytes."""

    headers: dict[str, str]
    body: bytes


@dataclass
class Received:
    """What the receiver saw, by webhook-id: deliveries it accepted (a repeat counts again),
    the payload of each, those it answered 503, how many had a bad signature (401), and each
    accepted request in the order it came."""

    accepted: Counter[str] = field(default_factory=Counter)
    payloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    unavailable: Counter[str] = field(default_factory=Counter)
    rejected: int = 0
    requests: list[Request] = field(default_factory=list)

    def by_event(self) -> Counter[tuple[str, str]]:
        """Accepted deliveries per (event type, claim id): two webhook-ids announcing the same
        thing count twice."""
        counts: Counter[tuple[str, str]] = Counter()
        for msg_id, payload in self.payloads.items():
            counts[(payload["type"], payload["data"]["claim_id"])] += self.accepted[msg_id]
        return counts


class Receiver:
    """`Receiver(secret)` reserves a free port without listening on it; `listen()` starts
    answering there, `close()` stops (and `listen()` again reopens the same port)."""

    def __init__(self, secret: str, path: str = "/hooks/claims-crew") -> None:
        self.secret = secret
        self.path = path
        self.port = free_port()
        self.received = Received()
        self._lock = threading.Lock()
        self._refuse = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def unavailable(self, n: int) -> None:
        """Answer the next `n` deliveries (signed right or not) with 503."""
        with self._lock:
            self._refuse = n

    def listen(self) -> Receiver:
        server = ThreadingHTTPServer(("127.0.0.1", self.port), _handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(10)
        self._server = self._thread = None

    def snapshot(self) -> Received:
        """A copy of what was received so far, taken under the lock."""
        with self._lock:
            r = self.received
            return Received(
                Counter(r.accepted),
                dict(r.payloads),
                Counter(r.unavailable),
                r.rejected,
                list(r.requests),
            )

    def _answer(self, headers: Mapping[str, str], body: bytes) -> int:
        """The status for one delivery, counting it."""
        with self._lock:
            if not signature_ok(self.secret, headers, body):
                self.received.rejected += 1
                return 401
            msg_id = headers["webhook-id"]
            if self._refuse > 0:
                self._refuse -= 1
                self.received.unavailable[msg_id] += 1
                return 503
            self.received.accepted[msg_id] += 1
            self.received.payloads[msg_id] = json.loads(body)
            self.received.requests.append(Request(dict(headers), body))
            return 204


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            # http.server's headers are case-insensitive; a plain dict of lower-case names
            # is what signature_ok reads.
            headers = {k.lower(): v for k, v in self.headers.items()}
            status = receiver._answer(headers, body) if self.path == receiver.path else 404
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the counts, not a log."""

    return Handler
