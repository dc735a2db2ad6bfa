"""Claims whose review keeps failing are parked: each work item counts the failed reviews of
its claim and keeps their reasons, and a new state, 'failed', holds a claim that failed too
often out of every worker's take until a person re-queues it (`claims-crew requeue`), who is
named on the item.

Revision ID: 0016_claim_failures
"""

import sqlalchemy as sa
from alembic import op

revision = "0016_claim_failures"
down_revision = "0015_shared_rate_limit"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # SQLite cannot alter a CHECK constraint in place: batch mode copies the table over.
    with op.batch_alter_table("work_items", recreate="always") as batch:
        batch.add_column(sa.Column("failures", sa.Integer, nullable=False, server_default="0"))
        # JSON text: [reason, ...], one per failed review since the claim was last queued.
        batch.add_column(sa.Column("failure_reasons", sa.Text, nullable=False, server_default="[]"))
        # Who re-queued a parked claim last, and when (`claims-crew requeue`): no audit entry,
        # which records decisions, is written for it; this row says it.
        batch.add_column(sa.Column("requeued_by", sa.Text))
        batch.add_column(sa.Column("requeued_at", sa.Text))
        batch.drop_constraint("work_items_state", type_="check")
        batch.create_check_constraint(
            "work_items_state", sa.text("state IN ('pending', 'done', 'failed')")
        )
