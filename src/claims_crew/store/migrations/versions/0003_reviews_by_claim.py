"""decisions() and the report join reviews by claim; without this index the database builds a
temporary one on every read.

Revision ID: 0003_reviews_by_claim
"""

from alembic import op

revision = "0003_reviews_by_claim"
down_revision = "0002_attempt_tokens"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("reviews_claim", "reviews", ["claim_id"])
