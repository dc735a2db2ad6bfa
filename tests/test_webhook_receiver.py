"""The test receiver (tests/support/receiver.py) against the sender's signing: a delivery signed
by claims_crew.webhooks.signing passes the receiver's own check, and a changed body, another
secret or a stale timestamp does not; a receiver that is down refuses the connection, then
listens on the same port; one answering 503 does so for the next N deliveries only."""

from __future__ import annotations

import json
import time
from collections import Counter

import httpx
import pytest

from claims_crew.webhooks.signing import sign
from tests.support.receiver import Receiver, new_secret

BODY = json.dumps({"type": "claim.decided", "timestamp": "t", "data": {"claim_id": "C-1"}}).encode()


def post(
    receiver: Receiver,
    msg_id: str,
    body: bytes = BODY,
    secret: str | None = None,
    skew_s: int = 0,
    also: str = "",
) -> int:
    """`body` sent as the sender sends it, signed over BODY with `secret` (the receiver's
    unless given), stamped `skew_s` from now, after the signature `also` if given."""
    stamp = int(time.time()) + skew_s
    signature = sign(secret or receiver.secret, msg_id, stamp, BODY)
    headers = {
        "webhook-id": msg_id,
        "webhook-timestamp": str(stamp),
        "webhook-signature": f"{also} {signature}".strip(),
        "content-type": "application/json",
    }
    return httpx.post(receiver.url, content=body, headers=headers, timeout=5).status_code


def test_the_receiver_accepts_what_the_sender_signs_and_nothing_else() -> None:
    receiver = Receiver(new_secret()).listen()
    try:
        assert post(receiver, "evt_1") == 204
        assert post(receiver, "evt_1") == 204  # a repeat is counted as one
        assert post(receiver, "evt_2", also="v1,bm90LXRoaXM=") == 204
        assert post(receiver, "evt_3", body=BODY + b" ") == 401
        assert post(receiver, "evt_4", secret=new_secret()) == 401
        assert post(receiver, "evt_5", skew_s=-3600) == 401
        received = receiver.snapshot()
        assert received.accepted == Counter({"evt_1": 2, "evt_2": 1})
        assert received.rejected == 3
        assert received.by_event() == Counter({("claim.decided", "C-1"): 3})
    finally:
        receiver.close()


def test_a_receiver_down_refuses_then_listens_on_its_port_and_answers_503_as_told() -> None:
    receiver = Receiver(new_secret())
    with pytest.raises(httpx.ConnectError):
        post(receiver, "evt_1")
    receiver.unavailable(2)
    receiver.listen()
    try:
        assert [post(receiver, "evt_1") for _ in range(3)] == [503, 503, 204]
        received = receiver.snapshot()
        assert received.unavailable == Counter({"evt_1": 2})
        assert received.accepted == Counter({"evt_1": 1})
    finally:
        receiver.close()
