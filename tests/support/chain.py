"""Rewriting the stored audit chain as someone with the database alone can, or as it was before
entries were signed: every entry re-hashed, with its links and the head following."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, text

from claims_crew.store import audit


def rewrite_unsigned(conn: Connection, edit: Callable[[dict[str, Any]], None]) -> None:
    """Re-hash the whole chain after `edit` changed each entry's body in place. Each entry's
    link to the one before, the hashes a later entry names (`overrides_hash`,
    `revalidates_hash`) and the head follow. Without the audit key nothing can be signed: every
    entry is left naming no key and with no signature, as entries written before entries were
    signed are. Run it while `audit_log` still has its signature column."""
    rows = conn.execute(text("SELECT seq, body FROM audit_log ORDER BY seq")).all()
    prev, hashes = audit.GENESIS, {}
    for row in rows:
        data: dict[str, Any] = json.loads(row.body)
        data.pop("key_id", None)
        edit(data)
        for link, named in (("overrides_hash", "overrides"), ("revalidates_hash", "revalidates")):
            if data.get(named):
                data[link] = hashes[data[named]]
        data["prev"] = prev
        prev = hashes[row.seq] = audit.entry_hash(data)
        conn.execute(
            text(
                "UPDATE audit_log SET body = :body, hash = :hash, signature = NULL WHERE seq = :seq"
            ),
            {"body": audit.canonical(data), "hash": prev, "seq": row.seq},
        )
    if rows:
        conn.execute(text("UPDATE audit_head SET hash = :hash"), {"hash": prev})
