"""Claim leases: who is reviewing a claim right now, so two processes never both send it to models.

A holder names a host and a process, so a lease whose process on this host has died is seen as
free at once instead of blocking the next run until it expires.
"""

from __future__ import annotations

import os
import secrets
import socket
from datetime import timedelta

from sqlalchemy import delete, select

from claims_crew.store import sql
from claims_crew.store.base import StoreBase
from claims_crew.store.tables import leases
from claims_crew.vocabulary import stamp

LEASE_SECONDS = 30 * 60  # longer than any one claim's model calls; a dead holder is seen sooner


def lease_holder() -> str:
    """A name for one attempt at one claim: this host and process, and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def holder_gone(holder: str) -> bool:
    """The holder was a process on this host that no longer runs (it was killed mid-claim)."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's process: only its lease's expiry tells
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class Leases(StoreBase):
    """Taking and releasing a claim for review."""

    def lease(self, claim_id: str, holder: str, seconds: float = LEASE_SECONDS) -> bool:
        """Take a claim for review, unless another live holder has it; True when taken.

        Read and taken in one write transaction, which holds the store's write lock (on SQLite
        and on PostgreSQL alike), so of two processes asking at once exactly one gets it.
        A lease runs out after `seconds`, or at once when its holder's process on this host has
        died, so a killed run never blocks the next one.
        """
        with self.write() as conn:
            row = conn.execute(
                select(leases.c.holder, leases.c.expires_at).where(leases.c.claim_id == claim_id)
            ).first()
            if (
                row is not None
                and row.holder != holder
                and row.expires_at > self.now()
                and not holder_gone(row.holder)
            ):
                return False  # another live holder's, not yet run out
            expires_at = stamp(self.clock() + timedelta(seconds=seconds))
            sql.upsert(
                conn,
                leases,
                {"claim_id": claim_id, "holder": holder, "expires_at": expires_at},
                ["claim_id"],
            )
            return True

    def release(self, claim_id: str, holder: str) -> None:
        with self.write() as conn:
            conn.execute(
                delete(leases).where(leases.c.claim_id == claim_id, leases.c.holder == holder)
            )
