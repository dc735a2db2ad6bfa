"""Every event the store writes for webhooks: its name, when it is written, and what its `data`
holds. A new event starts here.

The names type an endpoint's `events:` in config/webhooks.yaml (webhooks/config.py validates
against them, `config check` lists them in its hint) and the events the store writes
(store/outbox.py, in the transaction of what each announces). docs/webhooks.md's table says
the same; the tests hold the list, what the store writes and that table together.

This module stands alone, as vocabulary.py does: the store, the sender and the config checker
each read it without loading one another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

# What a webhook endpoint may be told of (config/webhooks.yaml names the ones each wants).
WebhookEvent = Literal[
    "claim.decided", "claim.escalated", "claim.failed", "escalation.decided", "appeal.decided"
]
WEBHOOK_EVENTS: tuple[WebhookEvent, ...] = get_args(WebhookEvent)

# The `data` of an event that announces an audit entry's decision (store/outbox.announce_entry):
# `actor` is `auto` or `human:NAME`; `audit` is {"seq", "hash"}, the entry that recorded it.
DECISION_FIELDS = ("claim_id", "outcome", "answer", "rule", "reason_codes", "actor", "audit")


@dataclass(frozen=True)
class EventKind:
    """One event: its name, when the store writes it, and the keys of its `data`."""

    name: WebhookEvent
    when: str
    data: tuple[str, ...]


EVENTS: tuple[EventKind, ...] = (
    EventKind("claim.decided", "the resolver or the adjudicator decided a claim", DECISION_FIELDS),
    EventKind("claim.escalated", "a claim was escalated to a person", DECISION_FIELDS),
    EventKind(
        "claim.failed",
        "a claim's reviews failed too often; it is parked until re-queued",
        ("claim_id", "failures", "reason"),
    ),
    EventKind("escalation.decided", "a person decided an escalation", DECISION_FIELDS),
    EventKind(
        "appeal.decided",
        "an appeal's claim was decided, by the rules or a person",
        DECISION_FIELDS,
    ),
)
# Listed in the names' order (WEBHOOK_EVENTS), each name once (tests/test_webhook_config.py).
EVENT_KINDS: dict[str, EventKind] = {kind.name: kind for kind in EVENTS}
