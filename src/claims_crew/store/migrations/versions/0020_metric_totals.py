"""The totals /metrics reads, kept as the store writes (store/metric_totals.py): decisions by
outcome and rule, model calls and tokens by task and model, reviewed escalations and their
waits. Filled here from the rows already in force, so a store upgraded keeps its figures.

Revision ID: 0020_metric_totals
"""

import sqlalchemy as sa
from alembic import op

from claims_crew.store.metric_totals import recount

revision = "0020_metric_totals"
down_revision = "0019_person_clauses"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "metric_totals",
        sa.Column("figure", sa.Text, primary_key=True),
        sa.Column("a", sa.Text, primary_key=True),
        sa.Column("b", sa.Text, primary_key=True),
        sa.Column("n", sa.BigInteger, nullable=False),
        sa.Column("prompt_tokens", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("completion_tokens", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("micros", sa.BigInteger, nullable=False, server_default="0"),
    )
    recount(op.get_bind())
