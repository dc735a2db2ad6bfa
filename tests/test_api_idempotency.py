"""Idempotency-Key under a race (api/idempotency.py), against the API served for real (uvicorn on
127.0.0.1) over the real store, on both engines.

Requests racing under one key meet without a sleep: each submit that reaches ingest is held
there until every request of the race has reached ingest too or been answered, so on code that
takes claims in before it claims the key, every request is taken in; on code that reserves the
key first, only one ever reaches ingest.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from claims_crew.api import routes_claims
from claims_crew.api.app import ApiSettings
from claims_crew.store import IN_FLIGHT, Store
from claims_crew.store import tables as t
from claims_crew.store.service_tables import idempotency_keys
from tests.support.paths import ROOT
from tests.support.web import review_page

pytestmark = pytest.mark.usefixtures("engine")

SAMPLE = json.loads((ROOT / "claims" / "inbox" / "C-1042.json").read_text(encoding="utf-8"))
RACERS = 6
# Only a safety net for a broken build: a race is met by its requests, never by this timeout.
HOLD_S = 30


def claim_file(claim_id: str) -> list[Any]:
    body = json.dumps(SAMPLE | {"claim_id": claim_id}).encode("utf-8")
    return [("claim", (f"{claim_id}.json", body, "application/json"))]


def counts(store: Store) -> tuple[int, int]:
    """Claim files kept, and work items queued."""
    with store.read() as conn:
        files = conn.execute(select(func.count()).select_from(t.claim_files)).scalar_one()
        items = conn.execute(select(func.count()).select_from(t.work_items)).scalar_one()
    return files, items


class Race:
    """Holds each submit at ingest until `parties` requests have reached ingest or been
    answered; `first_only`: holds the first submit alone, until `go` is set."""

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self.met = threading.Condition()
        self.entered = 0
        self.answered = 0
        self.go = threading.Event()
        self.reached = threading.Event()

    def _ready(self) -> bool:
        return self.entered + self.answered >= self.parties

    def submit(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def held(*args: Any, **kwargs: Any) -> Any:
            with self.met:
                self.entered += 1
                self.met.notify_all()
                assert self.met.wait_for(self._ready, HOLD_S), "the race never met"
            return real(*args, **kwargs)

        return held

    def answer_once(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            try:
                return real(*args, **kwargs)
            finally:
                with self.met:
                    self.answered += 1
                    self.met.notify_all()

        return counted

    def hold_first(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def held(*args: Any, **kwargs: Any) -> Any:
            if not self.reached.is_set():
                self.reached.set()
                assert self.go.wait(HOLD_S), "the first submit was never let go"
            return real(*args, **kwargs)

        return held


@pytest.fixture
def served() -> Iterator[tuple[Store, httpx.Client]]:
    """The API over a fresh store, and a client with a token that may submit and read."""
    store = Store()
    token = store.add_client("core", ["submit", "read"], "ops")
    with review_page(store, api=ApiSettings()) as port:
        base = f"http://127.0.0.1:{port}/api/v1"
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base, headers=headers, timeout=HOLD_S * 2) as http:
            yield store, http
    store.close()


def test_different_claims_racing_under_one_key_keep_exactly_one(
    served: tuple[Store, httpx.Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, http = served
    race = Race(RACERS)
    monkeypatch.setattr(routes_claims, "submit", race.submit(routes_claims.submit))
    monkeypatch.setattr(routes_claims, "answer_once", race.answer_once(routes_claims.answer_once))
    key = {"Idempotency-Key": "one-key"}
    ids = [f"C-R{n}" for n in range(RACERS)]

    def post(claim_id: str) -> httpx.Response:
        return http.post("/claims", files=claim_file(claim_id), headers=key)

    with ThreadPoolExecutor(RACERS) as pool:
        answers = list(pool.map(post, ids))

    statuses = sorted(a.status_code for a in answers)
    assert statuses == [202] + [422] * (RACERS - 1), [a.text for a in answers]
    refused = [a.json()["code"] for a in answers if a.status_code == 422]
    assert refused == ["idempotency_key_reused"] * (RACERS - 1)
    (taken,) = [a.json()["claim_id"] for a in answers if a.status_code == 202]
    # Nothing of the refused requests is kept: one claim file, one queued item, the winner's.
    assert counts(store) == (1, 1)
    with store.read() as conn:
        kept = conn.execute(select(t.claim_files.c.claim_id)).scalars().all()
    assert kept == [taken]
    remembered = store.remembered("core", "one-key")
    assert remembered is not None and json.loads(remembered.body)["claim_id"] == taken


def test_the_same_request_while_the_first_is_in_flight_is_409_and_taken_in_once(
    served: tuple[Store, httpx.Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, http = served
    race = Race(1)
    monkeypatch.setattr(routes_claims, "submit", race.hold_first(routes_claims.submit))
    key = {"Idempotency-Key": "retry-key"}
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(http.post, "/claims", files=claim_file("C-F1"), headers=key)
        assert race.reached.wait(HOLD_S)
        again = http.post("/claims", files=claim_file("C-F1"), headers=key)
        assert again.status_code == 409, again.text
        assert again.json()["code"] == "idempotency_key_in_flight"
        assert int(again.headers["retry-after"]) >= 1
        assert counts(store) == (0, 0)  # the retry took nothing in
        race.go.set()
        answered = first.result()
    assert answered.status_code == 202 and "idempotent-replayed" not in answered.headers
    later = http.post("/claims", files=claim_file("C-F1"), headers=key)
    assert later.status_code == 202 and later.headers["idempotent-replayed"] == "true"
    assert later.json() == answered.json()
    assert counts(store) == (1, 1)


def test_a_server_error_releases_the_key_and_the_retry_is_tried_afresh(
    served: tuple[Store, httpx.Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, http = served
    real = routes_claims.submit
    failures = iter([RuntimeError("the disk went away")])

    def failing_once(*args: Any, **kwargs: Any) -> Any:
        for failure in failures:
            raise failure
        return real(*args, **kwargs)

    monkeypatch.setattr(routes_claims, "submit", failing_once)
    key = {"Idempotency-Key": "fails-once"}
    failed = http.post("/claims", files=claim_file("C-E1"), headers=key)
    assert failed.status_code == 500 and failed.json()["code"] == "internal_error"
    assert store.remembered("core", "fails-once") is None  # released, not kept
    retried = http.post("/claims", files=claim_file("C-E1"), headers=key)
    assert retried.status_code == 202 and "idempotent-replayed" not in retried.headers
    assert counts(store) == (1, 1)


def test_a_reservation_left_in_flight_is_taken_over_by_the_same_request_only() -> None:
    store = Store()
    assert store.reserve("core", "k", "a" * 64, 600) is None
    held = store.reserve("core", "k", "a" * 64, 600)
    assert held is not None and held.status == IN_FLIGHT  # in flight, not yet stale
    # Its server died answering: with the reservation past its time, the same request takes it
    # over (once), and another request is still told the key is used.
    with store.write() as conn:
        conn.execute(idempotency_keys.update().values(created_at="2000-01-01T00:00:00.000000Z"))
    other = store.reserve("core", "k", "b" * 64, 600)
    assert other is not None and other.request_sha256 == "a" * 64
    assert store.reserve("core", "k", "a" * 64, 600) is None
    assert store.reserve("core", "k", "a" * 64, 600) is not None
    kept = store.remember("core", "k", "a" * 64, 202, "{}", None)
    assert (kept.status, kept.body) == (202, "{}")
    store.release_key("core", "k", "a" * 64)  # an answer kept is never released
    assert store.remembered("core", "k") == kept


def test_a_key_released_while_another_request_reads_its_holder_is_reserved_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = Store()
    assert store.reserve("core", "k", "a" * 64, 600) is None
    read = store.remembered

    def released_first(client: str, key: str) -> object:
        # The first holder's answer fails just after the second request found the key taken.
        store.release_key("core", "k", "a" * 64)
        monkeypatch.setattr(store, "remembered", read)
        return read(client, key)

    monkeypatch.setattr(store, "remembered", released_first)
    assert store.reserve("core", "k", "b" * 64, 600) is None  # held now, not a crash
    held = store.remembered("core", "k")
    assert held is not None and held.request_sha256 == "b" * 64
