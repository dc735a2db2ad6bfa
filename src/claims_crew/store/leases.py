"""Claim leases: who is reviewing a claim right now, so two processes never both send it to models.

A holder names a host and a process, so a lease whose process on this host has died is seen as
free at once instead of blocking the next run until it expires.

A holder is one attempt at one claim (its name ends in a random part), and taking a lease
writes the taker's name over the last holder's: the holder's name is the lease's fencing token.
A holder whose lease ran out while it was paused or cut off still holds it until another takes
it; from then on `holds` says no, before each of its model calls (routine.py), and the store
refuses its record (recording.py).
"""

from __future__ import annotations

import os
import secrets
import socket
from datetime import timedelta

from sqlalchemy import Connection, delete, select

from claims_crew.store import sql
from claims_crew.store.base import StoreBase
from claims_crew.store.outage import rides_out
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


def holder_of(conn: Connection, claim_id: str) -> str | None:
    """Who holds the claim's lease, run out or not, as far as `conn`'s transaction sees."""
    return conn.scalar(select(leases.c.holder).where(leases.c.claim_id == claim_id))


class Leases(StoreBase):
    """Taking and releasing a claim for review."""

    @rides_out
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

    @rides_out
    def holds(self, claim_id: str, holder: str) -> bool:
        """Whether `holder` still holds the claim: nobody has taken its lease since (one read)."""
        with self.read() as conn:
            return holder_of(conn, claim_id) == holder

    @rides_out
    def release(self, claim_id: str, holder: str) -> None:
        with self.write() as conn:
            let_go(conn, claim_id, holder)


def let_go(conn: Connection, claim_id: str, holder: str) -> None:
    """In the caller's transaction: the claim's lease released, if `holder` still holds it."""
    conn.execute(delete(leases).where(leases.c.claim_id == claim_id, leases.c.holder == holder))
