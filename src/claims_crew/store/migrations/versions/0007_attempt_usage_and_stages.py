"""Each task's prompt and completion tokens and calls, and when each stage of the review (crew,
resolver, adjudicator) started and ended: the report's cost and time per level. Attempts
recorded before have neither; they read back as empty.

Revision ID: 0007_attempt_usage_and_stages
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_attempt_usage_and_stages"
down_revision = "0006_sign_in_attempts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "attempts", sa.Column("tokens_by_task", sa.Text, nullable=False, server_default="{}")
    )
    op.add_column("attempts", sa.Column("stages", sa.Text, nullable=False, server_default="{}"))
