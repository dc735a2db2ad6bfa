"""The service API's tables (migration 0018), on the store's one `metadata` (tables.py): service
clients, the rows of their calls' audit entries, Idempotency-Key answers, documents that arrive
after a claim, and the webhook outbox (outbox.py)."""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Index, Integer, Table, Text, UniqueConstraint

from claims_crew.store.tables import metadata

# Service clients (clients.py): like reviewers, only the token's SHA-256 is kept, and names are
# unique by their key (records.name_key).
api_clients = Table(
    "api_clients",
    metadata,
    Column("name", Text, primary_key=True),
    Column("name_key", Text, nullable=False),
    Column("token_sha256", Text, nullable=False, unique=True),
    Column("scopes", Text, nullable=False),  # comma-separated, sorted: "read,submit"
    Column("created_at", Text, nullable=False),
    Column("created_by", Text, nullable=False),
    Column("revoked_at", Text),
    Column("revoked_by", Text),
)

# The row of each `api_call` audit entry, as `letters` is of each letter entry: a claim's
# decision in force is its latest entry that no such row names (revalidation.py).
api_calls = Table(
    "api_calls",
    metadata,
    Column("audit_seq", Integer, primary_key=True, autoincrement=False),
    Column("client", Text, nullable=False),
    Column("claim_id", Text, nullable=False),
    Column("call", Text, nullable=False),
    Column("status", Integer, nullable=False),
    Column("at", Text, nullable=False),
)

# The first answer to each (client, Idempotency-Key), returned again to a retry.
idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("client", Text, primary_key=True),
    Column("key", Text, primary_key=True),
    Column("request_sha256", Text, nullable=False),
    Column("status", Integer, nullable=False),
    Column("body", Text, nullable=False),
    Column("location", Text),
    Column("created_at", Text, nullable=False),
)

# Documents that arrive for a claim after it was submitted, each kept once per claim.
later_documents = Table(
    "later_documents",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("claim_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("sha256", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("received_at", Text, nullable=False),
    Column("client", Text, nullable=False),
    UniqueConstraint("claim_id", "sha256", name="later_documents_once"),
)

# The outbox: an event per announcement, its payload fixed when written; `fanned_at` once its
# deliveries (one per endpoint that wants its type) are made.
webhook_events = Table(
    "webhook_events",
    metadata,
    Column("seq", Integer, primary_key=True),  # the order they were announced in
    Column("id", Text, nullable=False, unique=True),  # evt_…: the webhook-id every try sends
    Column("type", Text, nullable=False),
    Column("claim_id", Text, nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", Text, nullable=False),
    Column("fanned_at", Text),
)

webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("event_id", Text, ForeignKey("webhook_events.id"), nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("status", Text, nullable=False, server_default="pending"),  # |delivered|failed
    Column("attempts", Integer, nullable=False, server_default="0"),  # tries finished
    Column("next_at", Text),  # due from then (pending)
    Column("taken_by", Text),  # the sender trying it now, until `taken_until`
    Column("taken_until", Text),
    Column("last_status", Integer),  # the receiver's HTTP status on the last try, if any
    Column("last_error", Text),
    Column("delivered_at", Text),
    Column("created_at", Text, nullable=False),
    UniqueConstraint("event_id", "endpoint", name="webhook_deliveries_once"),
)

Index("api_clients_name_key", api_clients.c.name_key, unique=True)
Index("webhook_events_unfanned", webhook_events.c.fanned_at, webhook_events.c.seq)
Index(
    "webhook_deliveries_due",
    webhook_deliveries.c.status,
    webhook_deliveries.c.next_at,
    webhook_deliveries.c.id,
)
