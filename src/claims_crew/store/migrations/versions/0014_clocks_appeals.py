"""The desk's clocks and appeals on each escalation: the jurisdiction whose clock it runs on,
the last day to acknowledge and to decide it (ISO dates, desk/clocks.py), and the reviewers an
appeal leaves out (JSON list of names: who decided the claim before).

Escalations already in the store get the default clock (15 and 30 days from the day their claim
was reported, as config/clocks.yaml ships it), read from the claim file the store kept; one whose
file the store lacks has no clock (NULL) and lists after those that have one.

Revision ID: 0014_clocks_appeals
"""

import json
from datetime import date, timedelta

import sqlalchemy as sa
from alembic import op

revision = "0014_clocks_appeals"
down_revision = "0013_review_desk"
branch_labels = None
depends_on = None

_ACKNOWLEDGE_DAYS, _DECIDE_DAYS = 15, 30


def upgrade() -> None:
    op.add_column("escalations", sa.Column("jurisdiction", sa.Text))
    op.add_column("escalations", sa.Column("acknowledge_by", sa.Text))
    op.add_column("escalations", sa.Column("decide_by", sa.Text))
    op.add_column("escalations", sa.Column("excluded_reviewers", sa.Text))
    # The queue in deadline order, and `review list --overdue`.
    op.create_index("escalations_due", "escalations", ["state", "decide_by", "id"])
    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            "SELECT e.id, f.fields FROM escalations e "
            "JOIN decisions d ON d.claim_id = e.claim_id "
            "JOIN claim_files f ON f.claim_id = d.claim_id AND f.sha256 = d.claim_sha256"
        )
    ).all()
    for escalation_id, fields in rows:
        try:
            reported = date.fromisoformat(json.loads(str(fields))["date_reported"])
        except (TypeError, ValueError, KeyError):
            continue
        conn.execute(
            sa.text(
                "UPDATE escalations SET acknowledge_by = :ack, decide_by = :due WHERE id = :id"
            ),
            {
                "ack": (reported + timedelta(days=_ACKNOWLEDGE_DAYS)).isoformat(),
                "due": (reported + timedelta(days=_DECIDE_DAYS)).isoformat(),
                "id": escalation_id,
            },
        )
