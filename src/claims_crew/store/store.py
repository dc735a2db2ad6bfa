"""The decision store: SQLite in CLAIMS_CREW_HOME, the one place a claim's state lives.

It holds the claim files (by claim id and SHA-256), the runs, every agent's output (raw and
parsed), the tool ledger, resolutions, adjudications, decisions, escalations, human reviews,
reviewers (token hashes only), web sessions, and the audit chain (audit.py).

`Store` is the one object callers hold. Each topic is its own module and class, all sharing the
connections and transactions of base.py:

- schema.py: the numbered migrations;
- recording.py: runs, triage, and one claim's result, decision and audit entry written whole;
- revalidation.py: what each decision stands on, and revalidations as linked entries;
- claims.py: a claim's file and records read back;
- leases.py: who is reviewing a claim right now;
- queue.py: escalations, human decisions and reviews, the decided claims;
- reviewers.py: reviewers and their web sessions;
- sign_ins.py: signing in by token, throttled per client and overall;
- audit_reads.py: verifying, exporting and checkpointing the audit chain;
- report_query.py: the report's one pass over every decided claim;
- work_queue.py: claims ingested into the store, and workers taking them.
"""

from __future__ import annotations

from claims_crew.store.audit_reads import AuditReads
from claims_crew.store.claims import Claims
from claims_crew.store.leases import Leases
from claims_crew.store.queue import Queue
from claims_crew.store.recording import Recording
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
    Reviewers,
    SignIns,
    AuditReads,
    ReportQuery,
    WorkQueue,
):
    """The decision store in one SQLite file; safe to share between threads and processes."""
