"""Recent sign-in attempts on the review page, shared by every process serving it, so wrong
tokens are throttled per client and overall (sign_ins.py).

Revision ID: 0006_sign_in_attempts
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_sign_in_attempts"
down_revision = "0005_rows_by_audit_entry"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sign_in_attempts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("client", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("sign_in_attempts_client", "sign_in_attempts", ["client", "at"])
    op.create_index("sign_in_attempts_at", "sign_in_attempts", ["at"])
