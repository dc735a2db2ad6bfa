"""The audit chain as the Store reads it back: verified, exported, checkpointed, or one claim's.

The chain itself (hashing, appending, verifying, exporting) is audit.py, over a connection;
entries are appended by the writes that make decisions (recording.py, queue.py). Verifying here
walks the chain, checking each entry's signature with the audit key (entry_signatures.py),
then compares the rows the entries recorded with them (audit_rows.py), then, given a signed
checkpoint, proves the chain still extends it (checkpoint.py), all in one snapshot; the first
problem found is the one named.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Connection, select

from claims_crew.errors import CheckpointError
from claims_crew.store import audit, audit_rows, checkpoint
from claims_crew.store.audit_key import AuditKey, find_key
from claims_crew.store.base import StoreBase
from claims_crew.store.call_rows import NOT_A_CALL
from claims_crew.store.tables import audit_log
from claims_crew.vocabulary import stamp


def _chain_and_rows(conn: Connection, key: AuditKey | None) -> audit.Verdict:
    verdict = audit.verify(conn, key)
    return audit_rows.check(conn, verdict) if verdict.ok else verdict


class AuditReads(StoreBase):
    """Verifying, exporting, checkpointing and listing the audit trail."""

    def verify_audit(
        self, against: checkpoint.Checkpoint | None = None, key: AuditKey | None = None
    ) -> audit.Verdict:
        """The chain with each entry's signature, the rows it recorded, and (with `against`) a
        checkpoint. The key is `key`, else the audit key if there is one (audit_key.find_key);
        a signed entry or a checkpoint cannot be checked without one."""
        key = key or find_key()
        with self.read() as conn:
            verdict = _chain_and_rows(conn, key)
            if verdict.ok and against is not None:
                if key is None:
                    raise CheckpointError(
                        "no audit key: a checkpoint is checked with the key that signed it"
                    )
                verdict = checkpoint.check_chain(conn, against, key, verdict)
            return verdict

    def audit_checkpoint(self, key: AuditKey) -> tuple[audit.Verdict, checkpoint.Checkpoint | None]:
        """A signed checkpoint of the chain head, only if the whole trail verifies: a checkpoint
        of a chain already rewritten would vouch for the rewrite."""
        with self.read() as conn:
            verdict = _chain_and_rows(conn, key)
            if not verdict.ok:
                return verdict, None
            seq, digest = audit.head(conn)
            return verdict, checkpoint.sign(seq, digest, self.now(), key)

    def export_audit(self, since: datetime | None = None) -> list[str]:
        with self.read() as conn:
            return list(audit.export_lines(conn, stamp(since) if since else None, self.now()))

    def audit_entries(self, claim_id: str, *, calls: bool = False) -> list[audit.AuditEntry]:
        """The claim's entries in order; its service clients' calls (`api_call`) only with
        `calls`: the claim's trail as people read it is its decisions."""
        query = select(audit_log.c.body).where(audit_log.c.claim_id == claim_id)
        if not calls:  # left out in SQL: a claim's calls may far outnumber its decisions
            query = query.where(NOT_A_CALL)
        with self.read() as conn:
            bodies: Iterable[str] = conn.execute(query.order_by(audit_log.c.seq)).scalars()
            return [audit.AuditEntry.model_validate_json(body) for body in bodies]
