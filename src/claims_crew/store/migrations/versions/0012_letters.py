"""Decision letters issued: one row per letter, naming the audit entry that recorded it and the
letter's SHA-256, so the trail says what was sent. Additive: nothing before it changes.

Revision ID: 0012_letters
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_letters"
down_revision = "0011_payable_amounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "letters",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("format", sa.Text, nullable=False),
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("issued_at", sa.Text, nullable=False),
        sa.Column("audit_seq", sa.Integer, nullable=False),
    )
    op.create_index("letters_claim", "letters", ["claim_id", "id"])
    op.create_index("letters_audit_seq", "letters", ["audit_seq"])
