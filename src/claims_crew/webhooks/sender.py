"""One pass of the webhook sender: new events fanned out, due deliveries POSTed and marked.

A pass asks the store to fan each new event out to the endpoints that want it
(Store.fan_out), takes the deliveries that are due under a lease (Store.take_deliveries), and
POSTs each to its endpoint (sending.py): the payload the store fixed when the event was
written, as the body, byte for byte, with the Standard Webhooks headers (webhook-id: the
event's id, the same on every try; webhook-timestamp: this try's; and webhook-signature over
the three). A 2xx answer delivers it. Anything else (another status, a refused connection, no
answer within timeout_s, an address that is not public) is a failed try, recorded with its
reason, and the delivery waits in the store for its next try, retry_s[tries - 1] seconds
later, or is given up (failed) once the waits are spent. Redirects are not followed: Standard
Webhooks counts a 3xx as a failure, the endpoint's URL to be corrected.

Why two senders never send the same delivery at once (several `serve` processes on one store):

- a try's exchange ends at its deadline, timeout_s after it starts: sending.py shuts its
  sockets then, so no byte of it is sent or read later, however slowly the receiver answers;
- just before a try, its sender extends its lease to timeout_s + LEASE_MARGIN_S from now
  (Store.hold_delivery); if another sender has taken the delivery since, the try does not
  start. The batch's own lease (BATCH * timeout_s + LEASE_MARGIN_S) covers the tries before;
- so every try ends with LEASE_MARGIN_S of its lease to spare, time enough to record it
  (Store.delivered or retry_later, which record nothing for a sender that no longer holds the
  delivery), and another sender can take the delivery only once that lease has ended, after
  the try. The margin also absorbs the clocks of two machines that disagree a little.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

import httpx

from claims_crew.store import lease_holder
from claims_crew.vocabulary import stamp
from claims_crew.webhooks.config import WebhooksConfig
from claims_crew.webhooks.sending import Tried, post

if TYPE_CHECKING:
    from claims_crew.store import Delivery, Store

# Deliveries taken per batch; the lease covers every one of them timing out in turn.
BATCH = 10
# What a lease holds beyond the tries it covers (see above).
LEASE_MARGIN_S = 30.0


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


def new_client() -> httpx.Client:
    """The sender's HTTP client. No redirects (above). A fresh connection for every try, so
    that the try's deadline holds its socket from the moment it connects (a pooled one would
    be handed over unseen). Proxy variables from the environment are not used: the address
    checked (targets.py) must be the one the request is sent to."""
    return httpx.Client(
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(max_keepalive_connections=0),
    )


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
        self.client = client or new_client()

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
                outcome = self._send(delivery)
                if outcome in counts:  # not "lost": another sender has it now
                    counts[outcome] += 1
            if len(batch) < BATCH:
                break
        return PassCounts(fanned=fanned, **counts)

    def _send(self, delivery: Delivery) -> str:
        """Try one delivery and record it: 'delivered', 'retrying' or 'failed'; 'lost' when
        another sender took it before the try could start."""
        endpoint = self.config.endpoint(delivery.endpoint)
        if endpoint is None:
            tried = Tried(None, f"endpoint {delivery.endpoint!r} is no longer in webhooks.yaml")
            self.store.retry_later(delivery.id, self.holder, None, tried.error or "", None)
            return "failed"
        secret = self.secrets[endpoint.name]
        timeout_s = self.config.timeout_s
        if not self.store.hold_delivery(delivery.id, self.holder, timeout_s + LEASE_MARGIN_S):
            return "lost"
        tried = post(
            self.client, str(endpoint.url), secret, delivery, timeout_s, endpoint.allow_private
        )
        if tried.delivered:
            self.store.delivered(delivery.id, self.holder, tried.status_code or 200)
            return "delivered"
        wait = self.config.next_wait(delivery.attempts + 1)
        next_at = None if wait is None else stamp(self.store.clock() + timedelta(seconds=wait))
        self.store.retry_later(
            delivery.id, self.holder, tried.status_code, tried.error or "", next_at
        )
        return "failed" if next_at is None else "retrying"
