"""A person's decision keeps the clauses it rests on, as re-read when they named them (JSON of a
list of PersonClause: id, title, words in force, the endorsement that amended them), on the
review and on a four-eyes proposal, whose confirmation carries them over.

Reviews and proposals already recorded keep NULL: they named no clause.

Revision ID: 0019_person_clauses
"""

import sqlalchemy as sa
from alembic import op

revision = "0019_person_clauses"
down_revision = "0018_service_api"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("reviews", sa.Column("clauses", sa.Text))
    op.add_column("proposals", sa.Column("clauses", sa.Text))
