"""Each attempt's token counts.

Revision ID: 0002_attempt_tokens
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_attempt_tokens"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("attempts", sa.Column("tokens", sa.Text, nullable=False, server_default="{}"))
