"""The decision store, the one place a claim's state lives.

It is an SQLite file in CLAIMS_CREW_HOME by default, or the PostgreSQL database that
CLAIMS_CREW_DATABASE_URL names, reached through SQLAlchemy Core (engine.py). It holds the claim
files (by claim id and SHA-256), the runs, every agent's output (raw and parsed), the tool
ledger, resolutions, adjudications, decisions, escalations, human reviews, reviewers (token
hashes only), web sessions, and the audit chain (audit.py).

`Store` is the one object callers hold (`store.record(...)`, `store.take(...)`). Each topic is
its own module and class, and each class inherits only `StoreBase` (base.py: the database, its
transactions and clock), never another topic, and calls no other topic's private methods. What
two topics both write is plain functions that take the open connection, as audit.py's
`append` does: a first decision and a revalidation write an attempt through attempt_rows.py and
a decision through decision_rows.py; enqueueing and triage keep a claim file through triage.py.
Functions, not topic objects handed out by `Store` (`store.queue.decide(...)`): they keep every
caller's `store.method(...)` as it was, and writes that must land in one transaction with the
caller's own compose plainly when each takes that transaction's connection.

- schema.py: the numbered migrations;
- recording.py: runs, triage, and one claim's result, decision and audit entry written whole;
- attempt_rows.py, decision_rows.py, triage.py: the rows of an attempt, of a decision, and of a
  claim file, written inside a caller's transaction;
- revalidation.py: what each decision stands on, and revalidations as linked entries;
- claims.py: a claim's file and records read back;
- leases.py: who is reviewing a claim right now;
- queue.py: escalations, human decisions and reviews, the decided claims;
- reviewers.py: reviewers and their web sessions;
- desk.py (with desk_rows.py): reviewers' settings, assignment, four-eyes proposals, each
  checked by the desk's rule its caller hands in (desk/), on the rows as locked;
- sign_ins.py: signing in by token, throttled per client and overall;
- audit_reads.py: verifying, exporting and checkpointing the audit chain (audit_rows.py and
  validity_rows.py check the rows against it);
- report_query.py: the report's one pass over every decided claim;
- work_queue.py: claims ingested into the store, and workers taking them;
- failures.py: claims whose review keeps failing, parked until a person re-queues them;
- letters.py: what a decision letter is written from, and each letter issued.
- rate_windows.py: the rows of the rate limits every process on the store shares;
- clients.py: the API's service clients, their rate limit, calls, and Idempotency-Key
  reservations and answers;
- later_documents.py: documents that arrive for a claim after it was submitted;
- outbox.py: the webhook events written with what they announce, and their deliveries
  (service_tables.py: the tables of these three);
- claim_states.py: where each claim stands (queued, under review, decided, ...), for the API;
- metric_counts.py: the schema's revision, for /readyz, and a /metrics scrape's figures, read
  from the totals metric_totals.py keeps as the store writes and from index counts.
"""

from __future__ import annotations

from claims_crew.store.audit_reads import AuditReads
from claims_crew.store.claim_states import ClaimStates
from claims_crew.store.claims import Claims
from claims_crew.store.clients import ApiClients
from claims_crew.store.desk import Desk
from claims_crew.store.failures import ClaimFailures
from claims_crew.store.later_documents import LaterDocuments
from claims_crew.store.leases import Leases
from claims_crew.store.letters import Letters
from claims_crew.store.metric_counts import MetricCounts
from claims_crew.store.outbox import Outbox
from claims_crew.store.queue import Queue
from claims_crew.store.rate_windows import RateWindows
from claims_crew.store.recording import Recording
from claims_crew.store.report_facts import ReportFacts
from claims_crew.store.report_query import ReportQuery
from claims_crew.store.revalidation import Revalidations
from claims_crew.store.reviewers import Reviewers
from claims_crew.store.sign_ins import SignIns
from claims_crew.store.work_queue import WorkQueue


class Store(
    Revalidations,
    Recording,
    Claims,
    Leases,
    Queue,
    Desk,
    Reviewers,
    SignIns,
    AuditReads,
    ReportFacts,
    ReportQuery,
    WorkQueue,
    ClaimFailures,
    Letters,
    RateWindows,
    ApiClients,
    LaterDocuments,
    Outbox,
    ClaimStates,
    MetricCounts,
):
    """The decision store (SQLite or PostgreSQL); safe to share between threads and processes."""
