"""Every host this process looks up or connects to while a block runs, from Python's audit
events (`socket.getaddrinfo`, `socket.connect`): whichever HTTP library a provider's client uses,
its connections pass through the socket module and are seen here.

An audit hook cannot be removed, so one is added once and records only while `watching()` is open.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})

_lock = threading.Lock()
_open: list[set[str]] = []
_hooked = False


def _host_of(event: str, args: tuple[Any, ...]) -> str | None:
    if event == "socket.getaddrinfo":
        return str(args[0])
    if event == "socket.connect":
        address = args[1]
        if isinstance(address, tuple) and address:
            return str(address[0])
    return None


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _open or event not in ("socket.getaddrinfo", "socket.connect"):
        return
    host = _host_of(event, args)
    if host is not None:
        with _lock:
            for hosts in _open:
                hosts.add(host)


@contextmanager
def watching() -> Iterator[set[str]]:
    """The hosts looked up or connected to while the block runs (any thread)."""
    global _hooked
    with _lock:
        if not _hooked:
            sys.addaudithook(_hook)
            _hooked = True
        hosts: set[str] = set()
        _open.append(hosts)
    try:
        yield hosts
    finally:
        with _lock:
            _open.remove(hosts)
