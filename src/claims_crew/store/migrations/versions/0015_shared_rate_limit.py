"""The model calls' rate limit shared by every process on the store: one row per limit, with
the times of the calls it let through in the last window, the tokens of those that finished,
and how long a provider's 429 asked every process to hold off (store/rate_windows.py).

Revision ID: 0015_shared_rate_limit
"""

import sqlalchemy as sa
from alembic import op

revision = "0015_shared_rate_limit"
down_revision = "0014_clocks_appeals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_windows",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("taken", sa.Text, nullable=False, server_default="[]"),
        sa.Column("spent", sa.Text, nullable=False, server_default="[]"),
        sa.Column("hold_until", sa.Float, nullable=False, server_default="0"),
    )
