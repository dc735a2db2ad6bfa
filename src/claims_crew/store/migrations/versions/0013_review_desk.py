"""The review desk: reviewers' roles and authority, who each escalation is assigned to, and
decisions proposed for a second reviewer to confirm (four eyes).

Reviewers already registered keep what they could do: the role `reviewer`, every line (NULL),
any amount (NULL), denials allowed.

Revision ID: 0013_review_desk
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_review_desk"
down_revision = "0012_letters"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "reviewers", sa.Column("role", sa.Text, nullable=False, server_default="reviewer")
    )
    op.add_column("reviewers", sa.Column("lines", sa.Text))  # JSON list; NULL: every line
    op.add_column("reviewers", sa.Column("max_amount", sa.Text))  # decimal text; NULL: any
    op.add_column(
        "reviewers", sa.Column("may_deny", sa.Integer, nullable=False, server_default="1")
    )
    op.create_table(
        "assignments",
        sa.Column("escalation_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("line", sa.Text),
        sa.Column("reviewer", sa.Text, sa.ForeignKey("reviewers.name")),  # NULL: nobody fits
        sa.Column("assigned_at", sa.Text, nullable=False),
        sa.Column("audit_seq", sa.Integer, nullable=False),
    )
    # "My queue", and each reviewer's load.
    op.create_index("assignments_reviewer", "assignments", ["reviewer"])
    op.create_table(
        "proposals",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("escalation_id", sa.Integer, nullable=False),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("reviewer", sa.Text, nullable=False),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("proposed_at", sa.Text, nullable=False),
        sa.Column("audit_seq", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False, server_default="open"),
        sa.Column("closed_by", sa.Text),
        sa.Column("closed_at", sa.Text),
        sa.Column("closed_seq", sa.Integer),
        sa.CheckConstraint("state IN ('open', 'confirmed', 'returned')", name="proposals_state"),
    )
    op.create_index("proposals_escalation", "proposals", ["escalation_id", "state"])
