"""The audit chain as the Store reads it back: verified, exported, or one claim's entries.

The chain itself (hashing, appending, verifying, exporting) is audit.py, over a connection;
entries are appended by the writes that make decisions (recording.py, queue.py).
"""

from __future__ import annotations

from datetime import datetime

from claims_crew.store import audit
from claims_crew.store.base import StoreBase
from claims_crew.vocabulary import stamp


class AuditReads(StoreBase):
    """Verifying, exporting and listing the audit trail."""

    def verify_audit(self) -> audit.Verdict:
        with self.read() as conn:
            return audit.verify(conn)

    def export_audit(self, since: datetime | None = None) -> list[str]:
        with self.read() as conn:
            return list(audit.export_lines(conn, stamp(since) if since else None, self.now()))

    def audit_entries(self, claim_id: str) -> list[audit.AuditEntry]:
        with self.read() as conn:
            rows = conn.execute(
                "SELECT body FROM audit_log WHERE claim_id = ? ORDER BY seq", (claim_id,)
            ).fetchall()
        return [audit.AuditEntry.model_validate_json(body) for (body,) in rows]
