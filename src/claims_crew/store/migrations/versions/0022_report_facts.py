"""The report's facts (store/report_tables.py): one narrow row per decided claim, with the shape
it groups by and the numbers it sums, kept in the transaction that writes what they summarize,
so `claims-crew report` sums in SQL whatever the store holds. Filled here from the decisions in
force, so a store upgraded reports the same figures.

Revision ID: 0022_report_facts
"""

import sqlalchemy as sa
from alembic import op

from claims_crew.store.report_facts import recount_facts

revision = "0022_report_facts"
down_revision = "0021_assignment_why"
branch_labels = None
depends_on = None

TASKS = (
    "intake_task",
    "policy_task",
    "fraud_task",
    "adjudicate_task",
    "targeted_question_task",
    "policy_rebuttal_task",
    "fraud_rebuttal_task",
)
STAGES = ("crew", "resolver", "targeted_evidence", "debate", "adjudicator")


def upgrade() -> None:
    op.create_table(
        "report_shapes",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("shape", sa.Text, nullable=False),
    )
    op.create_table(
        "report_facts",
        sa.Column("claim_id", sa.Text, primary_key=True),
        sa.Column("decided_at", sa.Text, nullable=False),
        sa.Column("shape", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("rule", sa.Text, nullable=False),
        sa.Column("loss_type", sa.Text),
        sa.Column("reason_codes", sa.Text, nullable=False),
        sa.Column("question", sa.Text),
        sa.Column("escalation_id", sa.Integer),
        sa.Column("escalation_state", sa.Text),
        sa.Column("review", sa.Text),
        sa.Column("model_calls", sa.BigInteger, nullable=False),
        sa.Column("tokens", sa.BigInteger, nullable=False),
        sa.Column("micros", sa.BigInteger, nullable=False),
        sa.Column("person_micros", sa.BigInteger),
        sa.Column("policy_confidence", sa.Float),
        sa.Column("fraud_confidence", sa.Float),
        *(sa.Column(f"{stage}_micros", sa.BigInteger) for stage in STAGES),
        *(
            sa.Column(f"{task}_{part}", sa.BigInteger, nullable=False, server_default="0")
            for task in TASKS
            for part in ("prompt", "completion", "calls")
        ),
    )
    op.create_index("report_facts_decided", "report_facts", ["decided_at"])
    op.create_index("report_facts_waiting", "report_facts", ["escalation_state", "claim_id"])
    for level in (*STAGES, "person"):
        op.create_index(f"report_facts_{level}", "report_facts", [f"{level}_micros", "decided_at"])
    recount_facts(op.get_bind())
