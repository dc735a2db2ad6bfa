"""`audit verify` compares every decision, escalation and review with the entry that recorded
it, and every entry with its rows: looked up by entry number.

Revision ID: 0005_rows_by_audit_entry
"""

from alembic import op

revision = "0005_rows_by_audit_entry"
down_revision = "0004_claim_leases"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("decisions_audit_seq", "decisions", ["audit_seq"])
    op.create_index("escalations_audit_seq", "escalations", ["audit_seq"])
    op.create_index("reviews_audit_seq", "reviews", ["audit_seq"])
