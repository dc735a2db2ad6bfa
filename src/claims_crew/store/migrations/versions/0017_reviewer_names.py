"""Reviewer names are unique without regard to case and surrounding space: each reviewer's
name key is kept, under a unique index, so "bo" and "Bo" cannot both sign in
and one person cannot confirm their own proposal as the other.

A store that already holds two names with one key is not upgraded: which of the two is the
person, and what becomes of the other's sign-in, decisions and assignments, is for whoever runs
the desk to decide, not for a migration to guess. The error names them; the store stays as it
was (the upgrade is one transaction) until one is renamed or removed.

Revision ID: 0017_reviewer_names
"""

import unicodedata

import sqlalchemy as sa
from alembic import op

from claims_crew.errors import StoreError

revision = "0017_reviewer_names"
down_revision = "0016_claim_failures"
branch_labels = None
depends_on = None


def name_key(name: str) -> str:
    """The key as this step of the schema computes it: stripped, NFKC-normalised, case-folded.
    Written here, not imported, so the step stays what it was when the key's rule changes
    (a later rule is a later migration)."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


def clashes(names: list[str]) -> list[list[str]]:
    """The groups of names (oldest first) that share one key."""
    by_key: dict[str, list[str]] = {}
    for name in names:
        by_key.setdefault(name_key(name), []).append(name)
    return [group for group in by_key.values() if len(group) > 1]


def upgrade() -> None:
    op.add_column("reviewers", sa.Column("name_key", sa.Text))
    conn = op.get_bind()
    names = [
        str(row.name)
        for row in conn.execute(sa.text("SELECT name FROM reviewers ORDER BY created_at, name"))
    ]
    if found := clashes(names):
        listed = "; ".join(" and ".join(repr(n) for n in group) for group in found)
        raise StoreError(
            f"reviewer names must differ by more than case and surrounding space, but this "
            f"store has {listed}: rename or remove all but one of each (in the reviewers "
            "table), then open the store again"
        )
    for name in names:
        conn.execute(
            sa.text("UPDATE reviewers SET name_key = :key WHERE name = :name"),
            {"key": name_key(name), "name": name},
        )
    op.create_index("reviewers_name_key", "reviewers", ["name_key"], unique=True)
