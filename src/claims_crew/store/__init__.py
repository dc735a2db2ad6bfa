"""The decision store: every claim's state, the review queue and the audit chain (all SQL)."""

from claims_crew.errors import AlreadyDecided, NotFound, StoreError
from claims_crew.store.store import (
    HUMAN_DECISIONS,
    MIGRATIONS,
    OPEN_OUTCOMES,
    ChangedFile,
    Decision,
    Escalation,
    Recorded,
    Review,
    Store,
    Triage,
    lease_holder,
    migrate,
    stamp,
)

__all__ = [
    "HUMAN_DECISIONS",
    "MIGRATIONS",
    "OPEN_OUTCOMES",
    "AlreadyDecided",
    "ChangedFile",
    "Decision",
    "Escalation",
    "NotFound",
    "Recorded",
    "Review",
    "Store",
    "StoreError",
    "Triage",
    "lease_holder",
    "migrate",
    "stamp",
]
