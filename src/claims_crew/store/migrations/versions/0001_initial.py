"""The first schema: claim files, runs, attempts and their parts, decisions, escalations,
reviews, reviewers and their sessions, files changed after their decision, the audit chain.

Revision ID: 0001_initial
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "claim_files",
        sa.Column("claim_id", sa.Text, primary_key=True),
        sa.Column("sha256", sa.Text, primary_key=True),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("policy_id", sa.Text, nullable=False),
        sa.Column("fields", sa.Text),
        sa.Column("content", sa.LargeBinary),
        sa.Column("seen_at", sa.Text, nullable=False),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("started_at", sa.Text, nullable=False),
        sa.Column("finished_at", sa.Text),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
    )
    op.create_table(
        "attempts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id")),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("claim_sha256", sa.Text, nullable=False),
        sa.Column("claim_path", sa.Text, nullable=False),
        sa.Column("policy_id", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("error_code", sa.Text),
        sa.Column("error_message", sa.Text),
        sa.Column("models", sa.Text, nullable=False),
        sa.Column("model_calls", sa.Text, nullable=False),
        sa.Column("policy_sha256", sa.Text),
        sa.Column("started_at", sa.Text, nullable=False),
        sa.Column("finished_at", sa.Text, nullable=False),
        sa.CheckConstraint("status IN ('reviewed', 'failed')", name="attempts_status"),
    )
    op.create_index("attempts_claim", "attempts", ["claim_id", "id"])
    op.create_table(
        "agent_outputs",
        sa.Column("attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), primary_key=True),
        sa.Column("task", sa.Text, primary_key=True),
        sa.Column("field", sa.Text),
        sa.Column("raw", sa.Text),
        sa.Column("parsed", sa.Text),
    )
    op.create_table(
        "tool_calls",
        sa.Column("attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_table(
        "resolutions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), nullable=False, unique=True
        ),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("rule", sa.Text, nullable=False),
        sa.Column("answer", sa.Text),
        sa.Column("reason_codes", sa.Text, nullable=False),
        sa.Column("question", sa.Text),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_table(
        "adjudications",
        sa.Column("attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), primary_key=True),
        sa.Column("valid", sa.Integer, nullable=False),
        sa.Column("choice", sa.Text),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_table(
        "decisions",
        sa.Column("claim_id", sa.Text, primary_key=True),
        sa.Column("claim_sha256", sa.Text, nullable=False),
        sa.Column("attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), nullable=False),
        sa.Column("resolution_id", sa.Integer, sa.ForeignKey("resolutions.id"), nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("answer", sa.Text),
        sa.Column("decided_by", sa.Text, nullable=False),
        sa.Column("decided_at", sa.Text, nullable=False),
        sa.Column("audit_seq", sa.Integer, nullable=False),
    )
    op.create_table(
        "escalations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "claim_id",
            sa.Text,
            sa.ForeignKey("decisions.claim_id"),
            nullable=False,
            unique=True,
        ),
        sa.Column("resolution_id", sa.Integer, sa.ForeignKey("resolutions.id"), nullable=False),
        sa.Column("amount", sa.Text),
        sa.Column("currency", sa.Text),
        sa.Column("reason_codes", sa.Text, nullable=False),
        sa.Column("question", sa.Text),
        sa.Column("opened_at", sa.Text, nullable=False),
        sa.Column("audit_seq", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False, server_default="open"),
        sa.Column("version", sa.Integer, nullable=False, server_default="1"),
        sa.Column("decided_by", sa.Text),
        sa.Column("decided_at", sa.Text),
        sa.Column("decision", sa.Text),
        sa.CheckConstraint("state IN ('open', 'decided')", name="escalations_state"),
    )
    op.create_index("escalations_open", "escalations", ["state", "opened_at", "id"])
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "escalation_id",
            sa.Integer,
            sa.ForeignKey("escalations.id"),
            nullable=False,
            unique=True,
        ),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("reviewer", sa.Text, nullable=False),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("decided_at", sa.Text, nullable=False),
        sa.Column("audit_seq", sa.Integer, nullable=False),
    )
    op.create_table(
        "reviewers",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("token_sha256", sa.Text, nullable=False, unique=True),
        sa.Column("created_at", sa.Text, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id_sha256", sa.Text, primary_key=True),
        sa.Column("reviewer", sa.Text, sa.ForeignKey("reviewers.name"), nullable=False),
        sa.Column("csrf", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Text, nullable=False),
    )
    op.create_table(
        "changed_files",
        sa.Column("claim_id", sa.Text, primary_key=True),
        sa.Column("decided_sha256", sa.Text, nullable=False),
        sa.Column("sha256", sa.Text, primary_key=True),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("seen_at", sa.Text, nullable=False),
    )
    op.create_table(
        "audit_log",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("at", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("hash", sa.Text, nullable=False),
    )
    op.create_index("audit_log_claim", "audit_log", ["claim_id", "seq"])
    op.create_index("audit_log_at", "audit_log", ["at"])
    op.create_table(
        "audit_head",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("hash", sa.Text, nullable=False),
        sa.CheckConstraint("id = 1", name="audit_head_one_row"),
    )
