"""The review page served for real (uvicorn on a free local port, in a thread of the test), or
through TestClient, signed in or not."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi.testclient import TestClient

from claims_crew.api.app import ApiSettings
from claims_crew.review.pages import Appealer
from claims_crew.review.serving import http_protocol
from claims_crew.review.web import create_app, default_hosts
from claims_crew.store import Store
from tests.support.browser import free_port


@contextmanager
def review_page(
    store: Store,
    appeal: Appealer | None = None,
    api: ApiSettings | None = None,
    http: str | None = None,
) -> Iterator[int]:
    """The review page over `store`, on 127.0.0.1 (taking appeals through `appeal`, if given;
    serving the HTTP API under /api/v1 with `api`), with the HTTP protocol `serve` runs (or
    `http`, as uvicorn names one); yields its port, stops when the block ends."""
    port = free_port()
    app = create_app(store, default_hosts("127.0.0.1", port), appeal=appeal, api=api)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", http=http or http_protocol()
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the review server did not start")
        thread.join(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def client(store: Store) -> TestClient:
    """The review app over `store` through TestClient, with no session."""
    return TestClient(create_app(store, ["testserver"]), follow_redirects=False)


def signed_in(store: Store, name: str = "ana") -> TestClient:
    """A TestClient signed in as a new reviewer `name`."""
    token = store.add_reviewer(name)
    c = client(store)
    form = c.get("/login")
    csrf = form.context["csrf"]  # type: ignore[attr-defined]
    response = c.post("/login", data={"token": token, "csrf": csrf})
    assert response.status_code == 303 and response.headers["location"] == "/"
    return c


def csrf_of(html: str) -> str:
    """The CSRF token a page's forms carry."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None
    return found[1]
