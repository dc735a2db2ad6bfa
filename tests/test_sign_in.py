"""Sign-in on the review page is throttled per client and overall, across workers; the
command line's by the name claimed, under a ceiling of its own.

The clock is the store's, held still or moved by the test, so the waits are exact.
"""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from claims_crew.review.web import SESSION_COOKIE, create_app
from claims_crew.store import SignInLimits, SignInThrottled, Store, command_line_client
from claims_crew.store.sign_ins import wait_after


class Clock:
    """A clock that stands still until the test moves it."""

    def __init__(self) -> None:
        self.now = datetime(2025, 11, 5, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def store(clock: Clock) -> Store:
    return Store(clock=clock)


def browser(
    store: Store, address: str = "10.0.0.1", limits: SignInLimits | None = None
) -> TestClient:
    app = create_app(store, ["testserver"], limits)
    return TestClient(app, follow_redirects=False, client=(address, 50000))


def sign_in(c: TestClient, token: str) -> Response:
    csrf = c.get("/login").context["csrf"]  # type: ignore[attr-defined]
    return c.post("/login", data={"token": token, "csrf": csrf})


def test_the_wait_grows_after_the_free_attempts() -> None:
    assert [wait_after(n, 5, 900) for n in (0, 4, 5, 6, 7, 14, 15, 2000)] == [
        0,
        0,
        1,
        2,
        4,
        512,
        900,
        900,
    ]


def test_wrong_tokens_from_one_client_wait_longer_and_longer(store: Store, clock: Clock) -> None:
    token = store.add_reviewer("ana")
    c = browser(store)
    assert [sign_in(c, f"guess-{i}").status_code for i in range(5)] == [401] * 5
    held = sign_in(c, "guess-5")
    assert held.status_code == 429 and held.headers["retry-after"] == "1"
    assert "Too many wrong tokens. Try again in 1 s." in held.text
    # While the wait runs even the right token is refused, unchecked.
    assert sign_in(c, token).status_code == 429
    clock.advance(1)
    assert sign_in(c, "guess-6").status_code == 401
    assert sign_in(c, "guess-7").headers["retry-after"] == "2"
    clock.advance(2)
    assert sign_in(c, "guess-8").status_code == 401
    assert sign_in(c, "guess-9").headers["retry-after"] == "4"
    clock.advance(4)
    done = sign_in(c, token)
    assert done.status_code == 303 and SESSION_COOKIE in done.cookies


def test_another_client_is_not_held_up(store: Store) -> None:
    token = store.add_reviewer("ana")
    guesser = browser(store, "10.0.0.66")
    for i in range(6):
        sign_in(guesser, f"guess-{i}")
    assert sign_in(guesser, token).status_code == 429
    assert sign_in(browser(store, "10.0.0.2"), token).status_code == 303


def test_guesses_from_many_clients_meet_the_overall_limit(store: Store, clock: Clock) -> None:
    token = store.add_reviewer("ana")
    limits = SignInLimits(client_free=100, global_free=3, global_max_wait_s=60)
    codes = [sign_in(browser(store, f"10.0.1.{i}", limits), "guess").status_code for i in range(3)]
    assert codes == [401] * 3
    held = sign_in(browser(store, "10.0.2.1", limits), token)
    assert held.status_code == 429 and held.headers["retry-after"] == "1"
    clock.advance(1)
    assert sign_in(browser(store, "10.0.2.1", limits), token).status_code == 303


def test_a_right_token_is_not_counted_and_old_failures_are_forgotten(
    store: Store, clock: Clock
) -> None:
    token = store.add_reviewer("ana")
    c = browser(store)
    assert [sign_in(c, token).status_code for _ in range(10)] == [303] * 10
    assert [sign_in(c, f"guess-{i}").status_code for i in range(6)] == [401] * 5 + [429]
    clock.advance(SignInLimits().window_s + 1)
    assert sign_in(c, "guess-again").status_code == 401


def test_workers_racing_let_no_more_guesses_through(clock: Clock, store: Store) -> None:
    """Four workers, each with its own Store on the same database, take 40 guesses from one
    client at once: exactly the five free ones are checked, the rest wait."""
    store.add_reviewer("ana")
    workers = [Store(url=store.url, clock=clock) for _ in range(4)]
    codes: Counter[int] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(8)

    def guess(worker: Store, n: int) -> None:
        c = browser(worker)
        csrf = c.get("/login").context["csrf"]  # type: ignore[attr-defined]
        start.wait()
        for i in range(5):
            status = c.post("/login", data={"token": f"g{n}-{i}", "csrf": csrf}).status_code
            with lock:
                codes[status] += 1

    threads = [threading.Thread(target=guess, args=(workers[n % 4], n)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == Counter({401: 5, 429: 35})


def test_the_command_line_counts_by_the_name_claimed_under_one_ceiling(
    store: Store, clock: Clock
) -> None:
    """Wrong tokens under ever new names meet the ceiling; the page's sign-ins are not held
    by it, and the ceiling lifts as the oldest failure leaves the window."""
    token = store.add_reviewer("ana")
    limits = SignInLimits(client_free=100, global_free=100, command_line_ceiling=3)
    assert command_line_client(" ANA ") == command_line_client("ana") != command_line_client("bo")
    for name in ("bo", "cy"):
        assert store.sign_in("guess", command_line_client(name), limits) is None
    clock.advance(10)
    assert store.sign_in("guess", command_line_client(None), limits) is None
    with pytest.raises(SignInThrottled) as held:
        store.sign_in(token, command_line_client("ana"), limits)
    assert held.value.retry_after == limits.window_s - 10  # until the first two are forgotten
    assert sign_in(browser(store, limits=limits), token).status_code == 303
    clock.advance(limits.window_s - 10)
    assert store.sign_in(token, command_line_client("ana"), limits) == "ana"
