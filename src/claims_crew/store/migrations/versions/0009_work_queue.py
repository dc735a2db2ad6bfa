"""Claims in the store, for workers on any machine: each claim file's attachments kept as text
beside its bytes, and the work queue the workers take claims from.

A worker reviews a claim from the store alone (claim_files: the file's bytes, its fields and now
its attachments), so the inbox folder need be on one machine only: where `ingest` runs. Files
kept before have no attachments stored (NULL); they are read again when ingested.

Revision ID: 0009_work_queue
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_work_queue"
down_revision = "0008_validations_and_superseded_rows"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # JSON text: {attachment name: its text}, as the intake agent is shown it.
    op.add_column("claim_files", sa.Column("attachments", sa.Text))
    op.create_table(
        "work_items",
        sa.Column("claim_id", sa.Text, primary_key=True),
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False, server_default="pending"),
        sa.Column("enqueued_at", sa.Text, nullable=False),
        sa.Column("taken_by", sa.Text),
        sa.Column("taken_at", sa.Text),
        sa.Column("expires_at", sa.Text),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("finished_at", sa.Text),
        sa.CheckConstraint("state IN ('pending', 'done')", name="work_items_state"),
    )
    # The take: pending items in the order they came, skipping those whose lease runs.
    op.create_index("work_items_take", "work_items", ["state", "enqueued_at", "claim_id"])
    # A worker's heartbeat and the dead-holder check find items by holder.
    op.create_index("work_items_holder", "work_items", ["taken_by"])
