"""What /readyz reads that no other topic does: the database's migration revision, asked once
and now (the claims in each state, for /metrics, are claim_states.py's)."""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from claims_crew.errors import DatabaseUnavailable
from claims_crew.store.base import StoreBase
from claims_crew.store.schema import current_revision


class MetricCounts(StoreBase):
    """What the readiness probe asks of the store."""

    def schema_revision(self) -> str | None:
        """The database's migration revision now (None: never migrated). Asked once, not
        ridden out: a readiness probe wants the answer now. DatabaseUnavailable when the
        database does not answer."""
        try:
            with self.engine.connect() as conn:
                return current_revision(conn)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"{self.where} does not answer: {exc}") from exc
