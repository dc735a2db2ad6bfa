"""The decision store: every claim's state, the review queue and the audit chain (all SQL)."""

from claims_crew.errors import AlreadyDecided, NotFound, SignInThrottled, StoreError
from claims_crew.store.claim_states import ClaimStatus
from claims_crew.store.claims import ChangedFile
from claims_crew.store.clients import IN_FLIGHT, ApiClient, Remembered
from claims_crew.store.decision_rows import Basis, Recorded
from claims_crew.store.desk_rows import ReviewerRow
from claims_crew.store.later_documents import LaterDocument
from claims_crew.store.leases import lease_holder
from claims_crew.store.outbox import Delivery
from claims_crew.store.proposal_rows import Proposal
from claims_crew.store.queue import Decision, Escalation
from claims_crew.store.report_query import DecidedClaim, EscalationClock
from claims_crew.store.revalidation import Revalidated, Standing
from claims_crew.store.review_rows import Review
from claims_crew.store.schema import HEAD, upgrade
from claims_crew.store.sign_ins import SignInLimits, command_line_client
from claims_crew.store.store import Store
from claims_crew.store.triage import Triage
from claims_crew.vocabulary import HUMAN_DECISIONS, OPEN_OUTCOMES, stamp

__all__ = [
    "HEAD",
    "HUMAN_DECISIONS",
    "IN_FLIGHT",
    "OPEN_OUTCOMES",
    "AlreadyDecided",
    "ApiClient",
    "Basis",
    "ChangedFile",
    "ClaimStatus",
    "DecidedClaim",
    "Decision",
    "Delivery",
    "Escalation",
    "EscalationClock",
    "LaterDocument",
    "NotFound",
    "Proposal",
    "Recorded",
    "Remembered",
    "Revalidated",
    "Review",
    "ReviewerRow",
    "SignInLimits",
    "SignInThrottled",
    "Standing",
    "Store",
    "StoreError",
    "Triage",
    "command_line_client",
    "lease_holder",
    "stamp",
    "upgrade",
]
