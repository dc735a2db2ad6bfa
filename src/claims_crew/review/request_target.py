"""Which host a request is for: its absolute-form target's authority, else its Host header.

A request names its host twice when its target is in absolute form (`GET http://host/path`,
as a client talking to a proxy sends it). RFC 9112, section 3.2.2: the server then ignores
the Host header and uses the target's authority. The Host check (web.py) must check that
authority, or a request for another site's name passes on our Host header.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import Scope

_SCHEMES = (b"http://", b"https://")


def target_authority(target: bytes) -> str | None:
    """The authority (host[:port], lower case, without user info) of an absolute-form request
    target; None for any other form (`/path`, `*`, `host:port`)."""
    lowered = target[:8].lower()
    scheme = next((s for s in _SCHEMES if lowered.startswith(s)), None)
    if scheme is None:
        return None
    rest = target[len(scheme) :]
    for end in (b"/", b"?", b"#"):
        rest = rest.split(end, 1)[0]
    return rest.rpartition(b"@")[2].decode("latin-1").lower()


def request_host(scope: Scope) -> str:
    """The host an HTTP request is for. A server that keeps the whole target in `raw_path`
    (uvicorn's h11) shows an absolute form there; one that keeps only its path (httptools) is
    run with protocol.HostFromTarget, which writes the target's authority into Host."""
    authority = target_authority(scope.get("raw_path") or b"")
    if authority is not None:
        return authority
    for name, value in scope["headers"]:
        if name == b"host":
            return str(value.decode("latin-1")).lower()
    return ""


def request_path(scope: Scope) -> str:
    """The path a request is for: scope's own, or an absolute form's path where h11 left the
    whole target in it."""
    path = str(scope["path"])
    if target_authority(path.encode("latin-1", errors="replace")) is None:
        return path
    return urlsplit(path).path or "/"
