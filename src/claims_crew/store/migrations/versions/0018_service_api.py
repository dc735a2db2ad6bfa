"""The service API and its webhooks: service clients (their tokens kept as SHA-256 only), the
rows of their calls' audit entries, the answers kept per Idempotency-Key, documents that arrive
for a claim after it was submitted, and the outbox: one event per announced decision, written in
the decision's own transaction, and one delivery of it per endpoint that wants it.

A client's calls are counted for its rate limit in the shared rate limits' rows (rate_windows,
0015), one row per client: no table of its own.

Revision ID: 0018_service_api
"""

import sqlalchemy as sa
from alembic import op

revision = "0018_service_api"
down_revision = "0017_reviewer_names"
branch_labels = None
depends_on = None


def _clients_and_calls() -> None:
    op.create_table(
        "api_clients",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("name_key", sa.Text, nullable=False),
        sa.Column("token_sha256", sa.Text, nullable=False, unique=True),
        sa.Column("scopes", sa.Text, nullable=False),  # comma-separated, sorted
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("created_by", sa.Text, nullable=False),
        sa.Column("revoked_at", sa.Text),
        sa.Column("revoked_by", sa.Text),
    )
    op.create_index("api_clients_name_key", "api_clients", ["name_key"], unique=True)
    # The row of each `api_call` audit entry, as `letters` is of each letter entry: the queries
    # that look for a claim's decision in force read past the entries named here.
    op.create_table(
        "api_calls",
        sa.Column("audit_seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("client", sa.Text, nullable=False),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("call", sa.Text, nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("at", sa.Text, nullable=False),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("client", sa.Text, primary_key=True),
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("request_sha256", sa.Text, nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("location", sa.Text),
        sa.Column("created_at", sa.Text, nullable=False),
    )
    op.create_table(
        "later_documents",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("received_at", sa.Text, nullable=False),
        sa.Column("client", sa.Text, nullable=False),
        sa.UniqueConstraint("claim_id", "sha256", name="later_documents_once"),
    )


def _outbox() -> None:
    op.create_table(
        "webhook_events",
        sa.Column("seq", sa.Integer, primary_key=True),  # the order they were announced in
        sa.Column("id", sa.Text, nullable=False, unique=True),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("fanned_at", sa.Text),
    )
    op.create_index("webhook_events_unfanned", "webhook_events", ["fanned_at", "seq"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Text, sa.ForeignKey("webhook_events.id"), nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="pending"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_at", sa.Text),
        sa.Column("taken_by", sa.Text),
        sa.Column("taken_until", sa.Text),
        sa.Column("last_status", sa.Integer),
        sa.Column("last_error", sa.Text),
        sa.Column("delivered_at", sa.Text),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.UniqueConstraint("event_id", "endpoint", name="webhook_deliveries_once"),
        sa.CheckConstraint(
            "status IN ('pending', 'delivered', 'failed')", name="webhook_deliveries_status"
        ),
    )
    op.create_index("webhook_deliveries_due", "webhook_deliveries", ["status", "next_at", "id"])


def upgrade() -> None:
    _clients_and_calls()
    _outbox()
