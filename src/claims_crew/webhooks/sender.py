"""One pass of the webhook sender: new events fanned out, due deliveries POSTed and marked.

A pass asks the store to fan each new event out to the endpoints that want it
(Store.fan_out), takes the deliveries that are due under a lease (Store.take_deliveries: two
senders never hold the same one), and POSTs each to its endpoint: the payload the store fixed
when the event was written, as the body, byte for byte, with the Standard Webhooks headers
(webhook-id: the event's id, the same on every try; webhook-timestamp: this try's; and
webhook-signature over the three). A 2xx answer delivers it. Anything else (another status, a
refused connection, no answer within timeout_s) is a failed try, recorded with its reason, and
the delivery waits in the store for its next try, retry_s[tries - 1] seconds later, or is
given up (failed) once the waits are spent. Redirects are not followed: Standard Webhooks counts
a 3xx as a failure, the endpoint's URL to be corrected.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

import httpx

from claims_crew.store import lease_holder
from claims_crew.vocabulary import stamp
from claims_crew.webhooks.config import WebhooksConfig
from claims_crew.webhooks.signing import sign

if TYPE_CHECKING:
    from claims_crew.store import Delivery, Store

# Deliveries taken per batch; the lease covers every one of them timing out in turn.
BATCH = 10
LEASE_MARGIN_S = 30.0


@dataclass(frozen=True)
class Tried:
    """What one try came to: the receiver's status (None: no answer) and, failed, why."""

    status_code: int | None
    error: str | None

    @property
    def delivered(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class PassCounts:
    """What one pass did."""

    fanned: int = 0
    delivered: int = 0
    retrying: int = 0
    failed: int = 0


def sender_name() -> str:
    """A holder name unique to this sender: a claim's lease holder's (host, process and a
    random part), marked as a sender's."""
    return f"webhooks@{lease_holder()}"


def post(
    client: httpx.Client, url: str, secret: str, delivery: Delivery, timeout_s: float
) -> Tried:
    """POST one delivery, signed; what came of it, with a reason a person can read."""
    body = delivery.payload.encode("utf-8")
    timestamp = int(time.time())
    headers = {
        "webhook-id": delivery.event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, delivery.event_id, timestamp, body),
        "content-type": "application/json",
    }
    try:
        response = client.post(url, content=body, headers=headers, timeout=timeout_s)
    except httpx.TimeoutException:
        return Tried(None, f"no answer from {url} within {timeout_s:g} s")
    except httpx.ConnectError as exc:
        return Tried(None, f"could not connect to {url}: {exc}")
    except httpx.HTTPError as exc:
        return Tried(None, f"request to {url} failed: {type(exc).__name__}: {exc}")
    if 200 <= response.status_code < 300:
        return Tried(response.status_code, None)
    reason = response.reason_phrase or "no reason given"
    return Tried(response.status_code, f"{url} answered {response.status_code} {reason}")


class Sender:
    """The webhook sender of one process over one store, with the endpoints' secrets read."""

    def __init__(
        self,
        store: Store,
        config: WebhooksConfig,
        secrets: dict[str, str],
        client: httpx.Client | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.secrets = secrets
        self.holder = sender_name()
        self.client = client or httpx.Client(follow_redirects=False)

    def close(self) -> None:
        self.client.close()

    def run_pass(self) -> PassCounts:
        """Fan out, then send what is due, batch by batch, until nothing due is left."""
        # Even with no endpoint: new events are then marked fanned, sent to no one.
        fanned = self.store.fan_out(self.config.wants())
        counts = {"delivered": 0, "retrying": 0, "failed": 0}
        lease_s = BATCH * self.config.timeout_s + LEASE_MARGIN_S
        while batch := self.store.take_deliveries(self.holder, BATCH, lease_s):
            for delivery in batch:
                counts[self._send(delivery)] += 1
            if len(batch) < BATCH:
                break
        return PassCounts(fanned=fanned, **counts)

    def _send(self, delivery: Delivery) -> str:
        """Try one delivery and record it: 'delivered', 'retrying' or 'failed'."""
        endpoint = self.config.endpoint(delivery.endpoint)
        if endpoint is None:
            tried = Tried(None, f"endpoint {delivery.endpoint!r} is no longer in webhooks.yaml")
            self.store.retry_later(delivery.id, self.holder, None, tried.error or "", None)
            return "failed"
        secret = self.secrets[endpoint.name]
        tried = post(self.client, str(endpoint.url), secret, delivery, self.config.timeout_s)
        if tried.delivered:
            self.store.delivered(delivery.id, self.holder, tried.status_code or 200)
            return "delivered"
        wait = self.config.next_wait(delivery.attempts + 1)
        next_at = None if wait is None else stamp(self.store.clock() + timedelta(seconds=wait))
        self.store.retry_later(
            delivery.id, self.holder, tried.status_code, tried.error or "", next_at
        )
        return "failed" if next_at is None else "retrying"
