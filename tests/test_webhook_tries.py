"""One try of a webhook (webhooks/sending.py, sender.py), on both engines: it ends at its deadline
however slowly the receiver answers, so two senders on one store send each event once; it reads
only the first few KB of an answer's body; and it is not sent to an address that is not public,
whether the URL names it or a host name resolves to it."""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import Counter

import pytest

from claims_crew.store import Delivery, Store
from claims_crew.webhooks import sender as sender_module
from claims_crew.webhooks import sending
from claims_crew.webhooks.config import WebhookEndpoint, WebhooksConfig
from claims_crew.webhooks.sender import PassCounts, Sender
from tests.support.outbox import announced
from tests.support.receiver import Receiver, new_secret
from tests.support.slow_receiver import (
    HUGE_BYTES,
    TRICKLE_S,
    TRICKLED_BYTES,
    Mode,
    SlowReceiver,
)

pytestmark = pytest.mark.usefixtures("engine")

SECRET = new_secret()
DEADLINE_S = 0.5
# A lease this short lapses while the receiver is still trickling its answer (TRICKLED_BYTES
# bytes TRICKLE_S apart): a try not ended at its deadline is then taken and sent again.
BATCH, MARGIN_S = 1, 2.0
assert BATCH * DEADLINE_S + MARGIN_S < TRICKLED_BYTES * TRICKLE_S / 2


def hooks(url: str, timeout_s: float = DEADLINE_S, allow_private: bool = True) -> WebhooksConfig:
    endpoint = WebhookEndpoint(
        name="core",
        url=url,
        secret_env="UNUSED",
        events=["claim.decided"],
        allow_private=allow_private,
    )
    # One wait of an hour: a failed try is not tried again within the test.
    return WebhooksConfig(endpoints=[endpoint], retry_s=[3600], timeout_s=timeout_s)


@pytest.mark.slow  # waits out a try's deadline, and starts two senders
@pytest.mark.parametrize("mode", ["status", "body"])
def test_two_senders_send_a_slowly_answered_webhook_once(
    mode: Mode, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sender_module, "BATCH", BATCH)
    monkeypatch.setattr(sender_module, "LEASE_MARGIN_S", MARGIN_S)
    with SlowReceiver(mode) as receiver:
        store = Store()
        event_id = announced(store, "claim.decided", "C-1")
        first = Sender(store, hooks(receiver.url), {"core": SECRET})
        second = Sender(Store(), hooks(receiver.url), {"core": SECRET})
        passes: list[PassCounts] = []
        trying = threading.Thread(target=lambda: passes.append(first.run_pass()), daemon=True)
        trying.start()
        assert receiver.posted.wait(60), "the first sender's POST never arrived"
        # The second sender tries for as long as the first one's try lasts, and once after.
        give_up = time.monotonic() + 60
        while trying.is_alive():
            assert second.run_pass() == PassCounts()
            assert time.monotonic() < give_up, "the first sender's pass never ended"
            time.sleep(0.05)
        assert second.run_pass() == PassCounts()
        first.close()
        second.close()
    assert receiver.posts == Counter({event_id: 1})
    [delivery] = store.deliveries()
    if mode == "status":  # no status by the deadline: a failed try, waiting for its next
        assert passes == [PassCounts(fanned=1, retrying=1)]
        assert (delivery.status, delivery.attempts, delivery.last_status) == ("pending", 1, None)
        assert delivery.last_error == f"no answer from {receiver.url} within {DEADLINE_S:g} s"
    else:  # a 200 came at once: delivered, its trickling body cut off at the deadline
        assert passes == [PassCounts(fanned=1, delivered=1)]
        assert (delivery.status, delivery.attempts, delivery.last_status) == ("delivered", 1, 200)
    assert not receiver.whole


def test_a_huge_answer_is_not_read() -> None:
    with SlowReceiver("huge") as receiver:
        store = Store()
        announced(store, "claim.decided", "C-2")
        # A deadline far off: what ends the reading is the cap, not the clock.
        sender = Sender(store, hooks(receiver.url, timeout_s=60), {"core": SECRET})
        assert sender.run_pass() == PassCounts(fanned=1, delivered=1)
        sender.close()
        assert receiver.answered.wait(60), "the receiver never stopped writing"
    # It wrote what the sockets' buffers held, then found the sender gone: far from all of it.
    assert not receiver.whole
    assert receiver.written < HUGE_BYTES // 4
    [delivery] = store.deliveries()
    assert (delivery.status, delivery.last_status) == ("delivered", 200)


def refused_try(claim_id: str) -> tuple[str, Delivery]:
    """One pass sending claim_id's event to this machine as `localhost`, private addresses not
    allowed: the URL, and the delivery, which must have been tried once and reached no one."""
    receiver = Receiver(SECRET).listen()
    store = Store()
    announced(store, "claim.decided", claim_id)
    url = receiver.url.replace("127.0.0.1", "localhost")
    sender = Sender(store, hooks(url, allow_private=False), {"core": SECRET})
    try:
        assert sender.run_pass() == PassCounts(fanned=1, retrying=1)
    finally:
        sender.close()
        receiver.close()
    assert receiver.snapshot().requests == []
    [delivery] = store.deliveries()
    return url, delivery


def test_a_name_resolving_to_loopback_is_refused_when_sent() -> None:
    url, delivery = refused_try("C-3")
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    error = delivery.last_error or ""
    assert f"{url}: refused: localhost resolves to " in error
    assert "a loopback address; set allow_private: true" in error


def test_a_name_that_changes_after_its_lookup_is_refused_at_the_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first lookup answers a public address; the connection's own lookup then reaches
    # 127.0.0.1, as a name rebound between the two would.
    public = ipaddress.ip_address("93.184.216.34")
    monkeypatch.setattr(sending, "resolve", lambda host, port, timeout_s: [public])
    _, delivery = refused_try("C-4")
    assert "refused: connected to " in (delivery.last_error or "")
    assert "a loopback address" in (delivery.last_error or "")
