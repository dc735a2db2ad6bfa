"""The webhook sender (webhooks/sender.py, loop.py) against a real receiver on 127.0.0.1, on
both engines: down at first (connection refused, then 503), then up; each event is delivered
exactly once, signed (checked by the receiver's own lines and by signing.verify), and the
store's attempts and statuses say what happened. A receiver that never answers ends failed
once the retry schedule is spent."""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest

from claims_crew.store import Delivery, Store
from claims_crew.webhooks.config import WebhookEndpoint, WebhooksConfig
from claims_crew.webhooks.loop import SenderLoop
from claims_crew.webhooks.sender import PassCounts, Sender
from claims_crew.webhooks.signing import verify
from tests.support.outbox import announced
from tests.support.receiver import Receiver, new_secret

pytestmark = pytest.mark.usefixtures("engine")

CORE_SECRET = new_secret()
DEAD_SECRET = new_secret()


def config(core: Receiver, dead: Receiver, retry_s: list[float]) -> WebhooksConfig:
    return WebhooksConfig(
        endpoints=[
            WebhookEndpoint(
                name="core",
                url=core.url,
                secret_env="UNUSED_CORE",
                events=["claim.decided", "claim.escalated"],
                allow_private=True,  # the receivers listen on 127.0.0.1
            ),
            WebhookEndpoint(
                name="dead",
                url=dead.url,
                secret_env="UNUSED_DEAD",
                events=["claim.decided"],
                allow_private=True,
            ),
        ],
        retry_s=retry_s,
        timeout_s=5,
    )


def by_endpoint(store: Store) -> dict[tuple[str, str], Delivery]:
    return {(d.endpoint, d.event_id): d for d in store.deliveries()}


def test_a_receiver_down_then_up_gets_each_event_once_and_a_dead_one_ends_failed() -> None:
    store = Store()
    # Neither listening yet: connection refused.
    core, dead = Receiver(CORE_SECRET), Receiver(DEAD_SECRET)
    decided = announced(store, "claim.decided", "C-1")
    escalated = announced(store, "claim.escalated", "C-2")
    announced(store, "claim.failed", "C-3")  # wanted by no endpoint
    settings = config(core, dead, retry_s=[0, 0, 0])
    secrets = {"core": CORE_SECRET, "dead": DEAD_SECRET}

    first = Sender(store, settings, secrets)
    assert first.run_pass() == PassCounts(fanned=3, delivered=0, retrying=3, failed=0)
    after = by_endpoint(store)
    assert set(after) == {("core", decided), ("core", escalated), ("dead", decided)}
    for delivery in after.values():
        assert (delivery.status, delivery.attempts, delivery.last_status) == ("pending", 1, None)
        assert "could not connect to http://127.0.0.1:" in (delivery.last_error or "")
    first.close()  # the server stops; what it did not send waits in the store

    core.unavailable(2)  # up, but answering 503 to the next two deliveries
    core.listen()
    sender = Sender(store, settings, secrets)  # a restarted server's sender
    assert sender.run_pass() == PassCounts(delivered=0, retrying=3, failed=0)
    refused = core.snapshot()
    assert refused.unavailable == Counter({decided: 1, escalated: 1})
    assert refused.accepted == Counter() and refused.rejected == 0
    core_rows = [d for (e, _), d in by_endpoint(store).items() if e == "core"]
    assert {(d.attempts, d.last_status) for d in core_rows} == {(2, 503)}
    assert all("answered 503" in (d.last_error or "") for d in core_rows)

    assert sender.run_pass() == PassCounts(delivered=2, retrying=1, failed=0)
    # The dead endpoint's fourth try is its last: retry_s holds three waits.
    assert sender.run_pass() == PassCounts(delivered=0, retrying=0, failed=1)
    assert sender.run_pass() == PassCounts()  # nothing left to send
    sender.close()
    core.close()

    final = by_endpoint(store)
    for event_id in (decided, escalated):
        row = final[("core", event_id)]
        assert (row.status, row.attempts, row.last_status) == ("delivered", 3, 204)
        assert row.delivered_at is not None and row.last_error is None
    gone = final[("dead", decided)]
    assert (gone.status, gone.attempts, gone.last_status) == ("failed", 4, None)
    assert "could not connect" in (gone.last_error or "")
    assert store.delivery_counts() == {"pending": 0, "delivered": 2, "failed": 1}

    # Each event reached the receiver once, signed, its body the payload the store fixed.
    received = core.snapshot()
    assert received.accepted == Counter({decided: 1, escalated: 1})
    assert received.rejected == 0 and len(received.requests) == 2
    payloads = {d.event_id: d.payload for d in store.deliveries()}
    for got in received.requests:
        assert got.headers["content-type"] == "application/json"
        verify(CORE_SECRET, got.headers, got.body)
        assert got.body == payloads[got.headers["webhook-id"]].encode("utf-8")
        assert json.loads(got.body)["type"] in ("claim.decided", "claim.escalated")


def test_the_retry_waits_set_when_the_next_try_is_due() -> None:
    store = Store()
    core, dead = Receiver(CORE_SECRET), Receiver(DEAD_SECRET)
    announced(store, "claim.escalated", "C-9")
    sender = Sender(store, config(core, dead, retry_s=[3600]), {"core": CORE_SECRET, "dead": ""})
    sender.run_pass()
    [waiting] = store.deliveries()
    assert waiting.status == "pending" and waiting.next_at is not None
    assert waiting.next_at > store.now()  # an hour from now, so not taken again yet
    core.listen()
    assert sender.run_pass() == PassCounts()
    nothing = core.snapshot()
    assert (nothing.accepted, nothing.unavailable, nothing.rejected) == (Counter(), Counter(), 0)
    sender.close()
    core.close()


def test_the_loop_sends_in_the_background_and_stops() -> None:
    store = Store()
    core, dead = Receiver(CORE_SECRET), Receiver(DEAD_SECRET)
    core.listen()
    event_id = announced(store, "claim.decided", "C-5")
    loop = SenderLoop(
        Sender(store, config(core, dead, retry_s=[0]), {"core": CORE_SECRET, "dead": DEAD_SECRET}),
        interval_s=0.05,
    ).start()
    try:
        deadline = time.monotonic() + 30
        while not core.snapshot().requests or len(store.deliveries("failed")) < 1:
            assert time.monotonic() < deadline, store.deliveries()
            time.sleep(0.05)
    finally:
        loop.stop(timeout_s=30)
        core.close()
    assert not loop.running
    received = core.snapshot()
    assert [r.headers["webhook-id"] for r in received.requests] == [event_id]
    assert received.accepted == Counter({event_id: 1}) and received.rejected == 0
