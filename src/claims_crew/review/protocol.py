"""The HTTP protocol `claims-crew serve` runs uvicorn with.

uvicorn's httptools protocol keeps only the path of an absolute-form target
(`GET http://other.example/api/v1/claims`) and passes the Host header on as sent, so the app
could not see which host the request is for (request_target.py). HostFromTarget puts the
target's authority in the Host header before the app sees the request, as RFC 9112 (3.2.2)
has a server use it in place of the Host header; the Host check then applies to it.
Without httptools, uvicorn's h11 protocol keeps the whole target, and the check reads it there
(serving.http_protocol chooses).
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from claims_crew.review.request_target import target_authority


class HostFromTarget(HttpToolsProtocol):
    """httptools, with an absolute-form target's authority as the request's Host."""

    def on_headers_complete(self) -> None:
        authority = target_authority(self.url)
        if authority is not None:
            # The same list the request's scope holds, changed before the app is called.
            self.headers[:] = [(n, v) for n, v in self.headers if n != b"host"]
            self.headers.append((b"host", authority.encode("latin-1")))
        super().on_headers_complete()
