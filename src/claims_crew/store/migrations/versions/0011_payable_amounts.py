"""A person's covered decision keeps the amount payable computed for it (JSON of a Payable:
the amount or why there is none, and each step with its clause).

Reviews already recorded keep NULL: no amount was computed when they were decided.

Revision ID: 0011_payable_amounts
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_payable_amounts"
down_revision = "0010_audit_entry_signatures"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("reviews", sa.Column("payable", sa.Text))
