"""Audit entries and webhook events written straight into the store, for the outbox's and the
sender's tests: each decision entry writes its webhook event beside it (store/outbox.py)."""

from __future__ import annotations

from typing import Any

from claims_crew.store import Store, audit
from claims_crew.store.outbox import announce
from claims_crew.webhook_events import WebhookEvent


def append(store: Store, kind: str, claim_id: str = "C-1", **extra: Any) -> tuple[Any, str]:
    """An entry of `kind` appended in a write of its own: (entry, hash)."""
    fields: dict[str, Any] = {
        "claim_sha256": "a" * 64,
        "policy_sha256": None,
        "config_sha256": None,
        "models": {},
        "outcome": "ACCEPTED",
        "answer": "covered",
        "rule": "R1",
        "reason_codes": ["COV-1"],
        "evidence": [],
        "actor": "auto",
        "reason": None,
        "overrides": None,
        "overrides_hash": None,
    }
    with store.write() as conn:
        return audit.append(
            conn, store.audit_key(), kind=kind, claim_id=claim_id, at=store.now(), **fields | extra
        )


def announced(store: Store, event: WebhookEvent, claim_id: str) -> str:
    """One event written as the store writes them, in a transaction of its own; its id."""
    event_id = f"evt_{claim_id.lower()}_{event.replace('.', '_')}"
    with store.write() as conn:
        announce(conn, event, claim_id, {"claim_id": claim_id}, store.now(), event_id)
    return event_id
