"""One try of one delivery: a signed POST under one deadline, its answer's body capped.

httpx's timeouts bound each network operation, not the whole request: a receiver that answers
a byte at a time keeps every read short and the try going for as long as it likes. So a try
has one deadline, timeout_s from its start, that covers looking the host up, connecting,
sending and reading the status. A watchdog timer holds the try's sockets (handed over by
httpcore's "trace" extension as each is connected) and shuts them down at the deadline: after
it, not one byte of the try is sent or read, whatever the receiver does. A try with no status
by then has failed ("no answer within N s"). The status decides: a 2xx delivers the webhook
(Standard Webhooks reads only the status); the body is read up to BODY_CAP bytes, at most one
read more, then dropped, so a receiver's 100 MB answer costs a few KB, and a body still
trickling in at the deadline is cut off there without undoing the answer.

Unless the endpoint says `allow_private: true`, the host is looked up first (within the same
deadline) and every address it resolves to must be public (targets.py), and the address the
connection reaches is checked again as it opens, before the request is written: a name that
resolves to 127.0.0.1, or starts to between the two lookups, is refused with its reason.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from claims_crew.errors import ClaimsCrewError
from claims_crew.webhooks.signing import sign
from claims_crew.webhooks.targets import address, refusal, resolve

if TYPE_CHECKING:
    from claims_crew.store import Delivery

# Bytes of an answer's body read before it is dropped: enough for a short "ok" to end cleanly.
BODY_CAP = 4096
_CONNECTED = frozenset({"connection.connect_tcp.complete", "connection.start_tls.complete"})
ALLOW_HINT = "set allow_private: true on the endpoint to send there"


@dataclass(frozen=True)
class Tried:
    """What one try came to: the receiver's status (None: no answer) and, failed, why."""

    status_code: int | None
    error: str | None

    @property
    def delivered(self) -> bool:
        return self.error is None


class RefusedAddress(ClaimsCrewError):
    """The try would reach an address that is not public; the message says which and why."""


def _shut(sock: socket.socket) -> None:
    """Shut a socket down both ways, waking a read or write blocked on it in another thread.
    The plain socket's method, so that a TLS socket's state is left to the thread using it;
    a socket already closed (its descriptor gone, never reused) raises, and is left alone."""
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class Watchdog:
    """Ends one try's exchange at its deadline, and checks the peer of each connection as it
    opens. `trace` is given to httpx as the request's "trace" extension."""

    def __init__(self, seconds: float, allow_private: bool) -> None:
        self.allow_private = allow_private
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(max(seconds, 0.0), self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            held = list(self._sockets)
        for sock in held:
            _shut(sock)

    def trace(self, event: str, info: Mapping[str, Any]) -> None:
        if event not in _CONNECTED or info.get("return_value") is None:
            return
        stream = info["return_value"]
        sock = stream.get_extra_info("socket")
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.append(sock)
            late = self.expired
        if late:  # connected after the deadline: nothing may be sent on it
            _shut(sock)
        if not self.allow_private and event.endswith("connect_tcp.complete"):
            peer = address(str(stream.get_extra_info("server_addr")[0]))
            why = None if peer is None else refusal(peer)
            if why is not None:
                sock.close()  # before a byte of the request is written
                raise RefusedAddress(f"connected to {peer}, {why}; {ALLOW_HINT}")


def _checked_host(url: httpx.URL, deadline_s: float) -> str | None:
    """Why the URL's host may not be sent to (it does not resolve in time, or resolves to an
    address that is not public), or None when every address it resolves to is public."""
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        found = resolve(url.host, port, deadline_s)
    except TimeoutError:
        return f"{url.host} was not resolved within {deadline_s:g} s"
    except OSError as exc:
        return f"could not resolve {url.host}: {exc}"
    for ip in found:
        why = refusal(ip)
        if why is not None:
            shown = url.host if address(url.host) else f"{url.host} resolves to {ip}, which"
            return f"refused: {shown} is {why}; {ALLOW_HINT}"
    return None


def _signed_headers(secret: str, delivery: Delivery, body: bytes) -> dict[str, str]:
    timestamp = int(time.time())
    return {
        "webhook-id": delivery.event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, delivery.event_id, timestamp, body),
        "content-type": "application/json",
    }


def _drain(response: httpx.Response) -> None:
    """Read at most BODY_CAP bytes of the body (plus what one read brings), then stop."""
    got = 0
    try:
        for chunk in response.iter_raw():
            got += len(chunk)
            if got >= BODY_CAP:
                return
    except httpx.HTTPError:
        return  # cut off at the deadline, or closed: the status already decided


def post(
    client: httpx.Client,
    url: str,
    secret: str,
    delivery: Delivery,
    deadline_s: float,
    allow_private: bool = False,
) -> Tried:
    """POST one delivery, signed, all of it within `deadline_s`; what came of it, with a
    reason a person can read."""
    started = time.monotonic()
    target = httpx.URL(url)
    if not allow_private:
        refused = _checked_host(target, deadline_s)
        if refused is not None:
            return Tried(None, f"{url}: {refused}")
    left = deadline_s - (time.monotonic() - started)
    body = delivery.payload.encode("utf-8")
    watchdog = Watchdog(left, allow_private)
    answer: tuple[int, str] | None = None
    try:
        with (
            watchdog,
            client.stream(
                "POST",
                target,
                content=body,
                headers=_signed_headers(secret, delivery, body),
                timeout=max(left, 0.001),
                extensions={"trace": watchdog.trace},
            ) as response,
        ):
            answer = (response.status_code, response.reason_phrase or "no reason given")
            _drain(response)
    except RefusedAddress as exc:
        return Tried(None, f"{url}: refused: {exc}")
    except httpx.HTTPError as exc:
        if answer is None:
            return _no_answer(url, exc, deadline_s, watchdog.expired)
    if answer is None:  # pragma: no cover - the stream either answers or raises
        return Tried(None, f"request to {url} failed: no status")
    status, reason = answer
    if 200 <= status < 300:
        return Tried(status, None)
    return Tried(status, f"{url} answered {status} {reason}")


def _no_answer(url: str, exc: httpx.HTTPError, deadline_s: float, expired: bool) -> Tried:
    if expired or isinstance(exc, httpx.TimeoutException):
        return Tried(None, f"no answer from {url} within {deadline_s:g} s")
    if isinstance(exc, httpx.ConnectError):
        return Tried(None, f"could not connect to {url}: {exc}")
    return Tried(None, f"request to {url} failed: {type(exc).__name__}: {exc}")
