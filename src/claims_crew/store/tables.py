"""The store's tables as SQLAlchemy Core sees them: what every query in store/ is written on.

This is the schema the migrations (migrations/versions/) build, described once for the
queries; `tests/test_store_schema.py` checks on both engines that the two agree. JSON bodies
are text, written and read by the store's own code (json.dumps / model_validate_json), so both
engines hold byte-identical bodies and the audit chain hashes the same bytes.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Table,
    Text,
)

metadata = MetaData()

claim_files = Table(
    "claim_files",
    metadata,
    Column("claim_id", Text, primary_key=True),
    Column("sha256", Text, primary_key=True),
    Column("path", Text, nullable=False),
    Column("policy_id", Text, nullable=False),
    Column("fields", Text),
    Column("content", LargeBinary),
    Column("seen_at", Text, nullable=False),
    Column("attachments", Text),  # JSON {name: text}; NULL for files kept before 0009
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("started_at", Text, nullable=False),
    Column("finished_at", Text),
    Column("note", Text, nullable=False, server_default=""),
)

attempts = Table(
    "attempts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id")),
    Column("claim_id", Text, nullable=False),
    Column("claim_sha256", Text, nullable=False),
    Column("claim_path", Text, nullable=False),
    Column("policy_id", Text, nullable=False),
    Column("status", Text, nullable=False),  # 'reviewed' | 'failed' (a CHECK in the schema)
    Column("error_code", Text),
    Column("error_message", Text),
    Column("models", Text, nullable=False),
    Column("model_calls", Text, nullable=False),
    Column("policy_sha256", Text),
    Column("started_at", Text, nullable=False),
    Column("finished_at", Text, nullable=False),
    Column("tokens", Text, nullable=False, server_default="{}"),
    Column("tokens_by_task", Text, nullable=False, server_default="{}"),
    Column("stages", Text, nullable=False, server_default="{}"),
)

agent_outputs = Table(
    "agent_outputs",
    metadata,
    Column("attempt_id", Integer, ForeignKey("attempts.id"), primary_key=True),
    Column("task", Text, primary_key=True),
    Column("field", Text),
    Column("raw", Text),
    Column("parsed", Text),
)

tool_calls = Table(
    "tool_calls",
    metadata,
    Column("attempt_id", Integer, ForeignKey("attempts.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("body", Text, nullable=False),
)

resolutions = Table(
    "resolutions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("attempt_id", Integer, ForeignKey("attempts.id"), nullable=False, unique=True),
    Column("claim_id", Text, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("rule", Text, nullable=False),
    Column("answer", Text),
    Column("reason_codes", Text, nullable=False),
    Column("question", Text),
    Column("body", Text, nullable=False),
)

adjudications = Table(
    "adjudications",
    metadata,
    Column("attempt_id", Integer, ForeignKey("attempts.id"), primary_key=True),
    Column("valid", Integer, nullable=False),
    Column("choice", Text),
    Column("body", Text, nullable=False),
)

decisions = Table(
    "decisions",
    metadata,
    Column("claim_id", Text, primary_key=True),
    Column("claim_sha256", Text, nullable=False),
    Column("attempt_id", Integer, ForeignKey("attempts.id"), nullable=False),
    Column("resolution_id", Integer, ForeignKey("resolutions.id"), nullable=False),
    Column("outcome", Text, nullable=False),
    Column("answer", Text),
    Column("decided_by", Text, nullable=False),
    Column("decided_at", Text, nullable=False),
    Column("audit_seq", Integer, nullable=False),
)

escalations = Table(
    "escalations",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("claim_id", Text, ForeignKey("decisions.claim_id"), nullable=False, unique=True),
    Column("resolution_id", Integer, ForeignKey("resolutions.id"), nullable=False),
    Column("amount", Text),
    Column("currency", Text),
    Column("reason_codes", Text, nullable=False),
    Column("question", Text),
    Column("opened_at", Text, nullable=False),
    Column("audit_seq", Integer, nullable=False),
    Column("state", Text, nullable=False, server_default="open"),  # 'open' | 'decided'
    Column("version", Integer, nullable=False, server_default="1"),
    Column("decided_by", Text),
    Column("decided_at", Text),
    Column("decision", Text),
    # The desk's clock (desk/clocks.py): ISO dates, fixed when the escalation opens.
    Column("jurisdiction", Text),
    Column("acknowledge_by", Text),
    Column("decide_by", Text),
    Column("excluded_reviewers", Text),  # JSON list: who may not decide it (an appeal's)
)

reviews = Table(
    "reviews",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("escalation_id", Integer, ForeignKey("escalations.id"), nullable=False, unique=True),
    Column("claim_id", Text, nullable=False),
    Column("reviewer", Text, nullable=False),
    Column("decision", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("decided_at", Text, nullable=False),
    Column("audit_seq", Integer, nullable=False),
    # A covered decision's amount payable, JSON of a Payable; NULL for any other decision.
    Column("payable", Text),
    # The clauses the decision rests on, JSON of a list of PersonClause; NULL: none named.
    Column("clauses", Text),
)

reviewers = Table(
    "reviewers",
    metadata,
    Column("name", Text, primary_key=True),
    Column("token_sha256", Text, nullable=False, unique=True),
    Column("created_at", Text, nullable=False),
    # The review desk's settings (desk/authority.py); NULL lines: every line, NULL amount: any.
    Column("role", Text, nullable=False, server_default="reviewer"),
    Column("lines", Text),
    Column("max_amount", Text),
    Column("may_deny", Integer, nullable=False, server_default="1"),
    # The name as two names are compared (records.name_key): unique, so "bo" and "Bo" are one
    # reviewer. Every row has one; the column is nullable only because SQLite adds a column to
    # a table in place no other way (migration 0017).
    Column("name_key", Text),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id_sha256", Text, primary_key=True),
    Column("reviewer", Text, ForeignKey("reviewers.name"), nullable=False),
    Column("csrf", Text, nullable=False),
    Column("expires_at", Text, nullable=False),
)

changed_files = Table(
    "changed_files",
    metadata,
    Column("claim_id", Text, primary_key=True),
    Column("decided_sha256", Text, nullable=False),
    Column("sha256", Text, primary_key=True),
    Column("path", Text, nullable=False),
    Column("seen_at", Text, nullable=False),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("claim_id", Text, nullable=False),
    Column("at", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("hash", Text, nullable=False),
    # HMAC of `hash` with the audit key (entry_signatures.py); NULL in entries from before.
    Column("signature", Text),
)

audit_head = Table(
    "audit_head",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),  # always 1: one chain
    Column("seq", Integer, nullable=False),
    Column("hash", Text, nullable=False),
)

leases = Table(
    "leases",
    metadata,
    Column("claim_id", Text, primary_key=True),
    Column("holder", Text, nullable=False),
    Column("expires_at", Text, nullable=False),
)

sign_in_attempts = Table(
    "sign_in_attempts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("client", Text, nullable=False),
    Column("at", Float, nullable=False),
)

validations = Table(
    "validations",
    metadata,
    Column("claim_id", Text, ForeignKey("decisions.claim_id"), primary_key=True),
    Column("audit_seq", Integer, nullable=False),
    Column("attempt_id", Integer, ForeignKey("attempts.id"), nullable=False),
    Column("claim_sha256", Text, nullable=False),
    Column("validated_at", Text, nullable=False),
    Column("expires_at", Text),
    Column("policy_sha256", Text),
    Column("policy_corrections_sha256", Text),
    Column("config_sha256", Text),
    Column("models", Text, nullable=False),
)

superseded = Table(
    "superseded",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("claim_id", Text, nullable=False),
    Column("what", Text, nullable=False),  # 'decision' | 'escalation' | 'review'
    Column("audit_seq", Integer, nullable=False),
    Column("row", Text, nullable=False),
    Column("superseded_at", Text, nullable=False),
    Column("superseded_by", Integer, nullable=False),
)

work_items = Table(
    "work_items",
    metadata,
    Column("claim_id", Text, primary_key=True),
    Column("sha256", Text, nullable=False),
    Column("path", Text, nullable=False),
    # 'pending' | 'done' | 'failed' (parked: its reviews failed too often; a person re-queues)
    Column("state", Text, nullable=False, server_default="pending"),
    Column("enqueued_at", Text, nullable=False),
    Column("taken_by", Text),
    Column("taken_at", Text),
    Column("expires_at", Text),
    Column("tries", Integer, nullable=False, server_default="0"),
    Column("finished_at", Text),
    Column("failures", Integer, nullable=False, server_default="0"),  # failed reviews, in a row
    Column("failure_reasons", Text, nullable=False, server_default="[]"),  # JSON: [reason, ...]
    Column("requeued_by", Text),  # who re-queued it last once it was parked, and when
    Column("requeued_at", Text),
)

assignments = Table(
    "assignments",
    metadata,
    Column("escalation_id", Integer, primary_key=True, autoincrement=False),
    Column("claim_id", Text, nullable=False),
    Column("line", Text),
    Column("reviewer", Text, ForeignKey("reviewers.name")),  # NULL: no reviewer fits
    Column("assigned_at", Text, nullable=False),
    Column("audit_seq", Integer, nullable=False),
    Column("why", Text),  # with no reviewer: why, as the rule found it (Assign.unassigned)
)

proposals = Table(
    "proposals",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("escalation_id", Integer, nullable=False),
    Column("claim_id", Text, nullable=False),
    Column("reviewer", Text, nullable=False),
    Column("decision", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("proposed_at", Text, nullable=False),
    Column("audit_seq", Integer, nullable=False),
    Column("state", Text, nullable=False, server_default="open"),  # open|confirmed|returned
    Column("closed_by", Text),
    Column("closed_at", Text),
    Column("closed_seq", Integer),
    # The clauses the proposed decision rests on, JSON of a list of PersonClause; NULL: none.
    Column("clauses", Text),
)

letters = Table(
    "letters",
    metadata,
    Column("id", Integer, primary_key=True),
    # No foreign key: a revalidation replaces the decision row, and the letters sent stay.
    Column("claim_id", Text, nullable=False),
    Column("format", Text, nullable=False),  # 'md' | 'html' | 'pdf'
    Column("sha256", Text, nullable=False),
    Column("issued_at", Text, nullable=False),
    Column("audit_seq", Integer, nullable=False),
)

# A rate limit shared by the processes on the store (rate_windows.py): the times (seconds,
# the database's clock) of the calls let through in the last window, as a JSON list, and until
# when every process holds off after a provider's 429; `spent`, the time and tokens of each call
# that finished in the window, for the tokens-per-minute cap.
rate_windows = Table(
    "rate_windows",
    metadata,
    Column("name", Text, primary_key=True),
    Column("taken", Text, nullable=False, server_default="[]"),
    Column("spent", Text, nullable=False, server_default="[]"),
    Column("hold_until", Float, nullable=False, server_default="0"),
)

# Figures /metrics reads, kept as the store writes them, in the transaction that writes what they
# count (metric_totals.py), so a scrape reads a few rows whatever the store holds. Sums are
# whole numbers, so taking a superseded decision's share off leaves them exact.
metric_totals = Table(
    "metric_totals",
    metadata,
    Column("figure", Text, primary_key=True),  # 'claims'|'decisions'|'model_usage'|'reviews'
    Column("a", Text, primary_key=True),  # decisions: outcome; model_usage: task; else ''
    Column("b", Text, primary_key=True),  # decisions: rule; model_usage: model; else ''
    Column("n", BigInteger, nullable=False),  # claims; decisions; model calls; reviews
    Column("prompt_tokens", BigInteger, nullable=False, server_default="0"),
    Column("completion_tokens", BigInteger, nullable=False, server_default="0"),
    Column("micros", BigInteger, nullable=False, server_default="0"),  # opened → decided
)

# The indexes the migrations make, named as they are there.
Index("attempts_claim", attempts.c.claim_id, attempts.c.id)
Index("escalations_open", escalations.c.state, escalations.c.opened_at, escalations.c.id)
Index("escalations_due", escalations.c.state, escalations.c.decide_by, escalations.c.id)
Index("audit_log_claim", audit_log.c.claim_id, audit_log.c.seq)
Index("audit_log_at", audit_log.c.at)
Index("reviews_claim", reviews.c.claim_id)
Index("decisions_audit_seq", decisions.c.audit_seq)
Index("escalations_audit_seq", escalations.c.audit_seq)
Index("reviews_audit_seq", reviews.c.audit_seq)
Index("sign_in_attempts_client", sign_in_attempts.c.client, sign_in_attempts.c.at)
Index("sign_in_attempts_at", sign_in_attempts.c.at)
Index("validations_expires_at", validations.c.expires_at)
Index("superseded_audit_seq", superseded.c.audit_seq)
Index("superseded_claim", superseded.c.claim_id, superseded.c.id)
Index("work_items_take", work_items.c.state, work_items.c.enqueued_at, work_items.c.claim_id)
Index("work_items_holder", work_items.c.taken_by)
Index("assignments_reviewer", assignments.c.reviewer)
Index("reviewers_name_key", reviewers.c.name_key, unique=True)
Index("proposals_escalation", proposals.c.escalation_id, proposals.c.state)
Index("letters_claim", letters.c.claim_id, letters.c.id)
Index("letters_audit_seq", letters.c.audit_seq)
