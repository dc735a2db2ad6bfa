"""An escalation left unassigned keeps why, as the rule found it when it assigned (the desk's
Assigner): no reviewer fits its line, or the only ones who fit decided it before its appeal.

Assignments already recorded keep NULL: the queue then says no reviewer fits, as it did.

Revision ID: 0021_assignment_why
"""

import sqlalchemy as sa
from alembic import op

revision = "0021_assignment_why"
down_revision = "0020_metric_totals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("assignments", sa.Column("why", sa.Text))
