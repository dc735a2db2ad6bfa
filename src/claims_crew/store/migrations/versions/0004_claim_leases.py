"""Who is reviewing a claim right now, so two processes never both send it to models.

Revision ID: 0004_claim_leases
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_claim_leases"
down_revision = "0003_reviews_by_claim"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leases",
        sa.Column("claim_id", sa.Text, primary_key=True),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Text, nullable=False),
    )
