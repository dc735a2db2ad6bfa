"""What each claim's decision in force last stood on (policy PDF, kind corrections, config
files, models) and when it expires; and the rows a revalidation replaced, kept whole beside the
entry that replaced them. Decisions made before get their versions from their audit entries,
which kept no config files' hash and no expiry.

Revision ID: 0008_validations_and_superseded_rows
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0008_validations_and_superseded_rows"
down_revision = "0007_attempt_usage_and_stages"
branch_labels = None
depends_on = None


def upgrade() -> None:
    validations = op.create_table(
        "validations",
        sa.Column("claim_id", sa.Text, sa.ForeignKey("decisions.claim_id"), primary_key=True),
        sa.Column("audit_seq", sa.Integer, nullable=False),
        sa.Column("attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), nullable=False),
        sa.Column("claim_sha256", sa.Text, nullable=False),
        sa.Column("validated_at", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Text),
        sa.Column("policy_sha256", sa.Text),
        sa.Column("policy_corrections_sha256", sa.Text),
        sa.Column("config_sha256", sa.Text),
        sa.Column("models", sa.Text, nullable=False),
    )
    op.create_index("validations_expires_at", "validations", ["expires_at"])
    # Read in Python rather than with an engine's JSON functions: one way for both engines.
    rows = op.get_bind().execute(
        sa.text(
            "SELECT d.claim_id, d.audit_seq, d.attempt_id, d.claim_sha256, d.decided_at, a.body "
            "FROM decisions d JOIN audit_log a ON a.seq = d.audit_seq"
        )
    )
    backfill = []
    for claim_id, audit_seq, attempt_id, claim_sha256, decided_at, body in rows:
        entry = json.loads(str(body))
        models = entry.get("models")
        backfill.append(
            {
                "claim_id": claim_id,
                "audit_seq": audit_seq,
                "attempt_id": attempt_id,
                "claim_sha256": claim_sha256,
                "validated_at": decided_at,
                "expires_at": entry.get("expires_at"),
                "policy_sha256": entry.get("policy_sha256"),
                "policy_corrections_sha256": entry.get("policy_corrections_sha256"),
                "config_sha256": entry.get("config_files_sha256"),
                "models": "{}" if models is None else json.dumps(models, separators=(",", ":")),
            }
        )
    if backfill:
        op.bulk_insert(validations, backfill)
    op.create_table(
        "superseded",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("claim_id", sa.Text, nullable=False),
        sa.Column("what", sa.Text, nullable=False),
        sa.Column("audit_seq", sa.Integer, nullable=False),
        sa.Column("row", sa.Text, nullable=False),
        sa.Column("superseded_at", sa.Text, nullable=False),
        sa.Column("superseded_by", sa.Integer, nullable=False),
        sa.CheckConstraint("what IN ('decision', 'escalation', 'review')", name="superseded_what"),
    )
    op.create_index("superseded_audit_seq", "superseded", ["audit_seq"])
    op.create_index("superseded_claim", "superseded", ["claim_id", "id"])
