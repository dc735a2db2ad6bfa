"""Service clients of the API: who they are, what they may do, how often, and what they did.

A client is a system, not a person (a core claims system calling `/api/v1`). As with reviewers,
its token is shown once and only its SHA-256 is kept, so a copy of the database calls nothing;
a revoked client's token answers to nobody. Names are unique by their key (records.name_key).

- Every call is an `api_call` audit entry naming the client and the call, with a row in
  `api_calls`: the queries that find a claim's decision in force read past the entries named
  there, as they do past letters, and audit_rows.py checks the two agree.
- Idempotency-Key: each (client, key) is reserved for one request before it is answered, then
  its answer is kept, and a retry gets it back.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from claims_crew.errors import StoreError
from claims_crew.records import name_key
from claims_crew.store import audit
from claims_crew.store.base import StoreBase
from claims_crew.store.outage import rides_out
from claims_crew.store.reviewers import checked_name, token_sha256
from claims_crew.store.service_tables import api_calls, api_clients, idempotency_keys
from claims_crew.store.sql import insert_new
from claims_crew.vocabulary import API_SCOPES, stamp

TOKEN_PREFIX = "cc_"
# The status an Idempotency-Key's row holds while its request is being answered (reserve): no
# HTTP answer has it, so a kept answer is never mistaken for one in flight.
IN_FLIGHT = 0


def scopes_text(scopes: Iterable[str]) -> str:
    """The scopes as kept: known ones only, at least one, sorted, comma-separated."""
    wanted = {s.strip() for s in scopes if s.strip()}
    if unknown := sorted(wanted - set(API_SCOPES)):
        known = ", ".join(API_SCOPES)
        raise StoreError(f"unknown scope {', '.join(unknown)}: the scopes are {known}")
    if not wanted:
        raise StoreError(f"a client needs at least one scope: {', '.join(API_SCOPES)}")
    return ",".join(sorted(wanted))


@dataclass(frozen=True)
class ApiClient:
    name: str
    scopes: frozenset[str]
    created_at: str
    revoked_at: str | None
    created_by: str = ""
    revoked_by: str | None = None


def _client(row: Any) -> ApiClient:
    return ApiClient(
        name=row.name,
        scopes=frozenset(row.scopes.split(",")),
        created_at=row.created_at,
        revoked_at=row.revoked_at,
        created_by=row.created_by,
        revoked_by=row.revoked_by,
    )


@dataclass(frozen=True)
class Remembered:
    """The first answer given to a client's Idempotency-Key, and the request it answered."""

    client: str
    key: str
    request_sha256: str
    status: int
    body: str
    location: str | None


def write_call(
    conn: Connection, entry: audit.AuditEntry, client: str, call: str, status: int
) -> None:
    """The row of an `api_call` entry, in the transaction that appended it."""
    conn.execute(
        insert(api_calls).values(
            audit_seq=entry.seq,
            client=client,
            claim_id=entry.claim_id,
            call=call,
            status=status,
            at=entry.at,
        )
    )


class ApiClients(StoreBase):
    """Service clients, their tokens, calls and Idempotency-Key answers."""

    def add_client(self, name: str, scopes: Iterable[str], actor: str) -> str:
        """Register a client with `scopes` (vocabulary.API_SCOPES); its token, shown once and
        kept only as a hash. A name whose key is taken is refused, even a revoked one's."""
        name = checked_name(name, "a client")
        kept = scopes_text(scopes)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = {
            "name": name,
            "name_key": name_key(name),
            "token_sha256": token_sha256(token),
            "scopes": kept,
            "created_at": self.now(),
            "created_by": actor,
        }
        try:
            with self.write() as conn:
                conn.execute(insert(api_clients).values(**row))
        except IntegrityError as exc:
            raise StoreError(f"a client named {name!r} already exists") from exc
        return token

    @rides_out
    def client_for_token(self, token: str) -> ApiClient | None:
        """The client whose token this is; None for an unknown or revoked one."""
        with self.read() as conn:
            row = conn.execute(
                select(api_clients).where(
                    api_clients.c.token_sha256 == token_sha256(token),
                    api_clients.c.revoked_at.is_(None),
                )
            ).first()
        return None if row is None else _client(row)

    def clients(self) -> list[ApiClient]:
        """Every client, revoked ones too, by name."""
        with self.read() as conn:
            rows = conn.execute(select(api_clients).order_by(api_clients.c.name_key))
            return [_client(row) for row in rows]

    def revoke_client(self, name: str, actor: str) -> bool:
        """Revoke the client's token for good; False when no such client is still active."""
        c = api_clients.c
        with self.write() as conn:
            done = conn.execute(
                update(api_clients)
                .where(c.name_key == name_key(name), c.revoked_at.is_(None))
                .values(revoked_at=self.now(), revoked_by=actor)
                .returning(c.name)
            ).first()
        return done is not None

    @rides_out
    def record_call(
        self, client: str, call: str, status: int, claim_id: str = "", claim_sha256: str = ""
    ) -> audit.AuditEntry:
        """An `api_call` audit entry for the client's call (method and path) and the status it
        was answered with, naming the claim it was about, if any; its row in `api_calls`."""
        with self.write() as conn:
            entry, _ = audit.append(
                conn,
                self.audit_key(),
                kind="api_call",
                claim_id=claim_id,
                claim_sha256=claim_sha256,
                **audit.decides_nothing(),
                actor=f"client:{client}",
                reason=None,
                overrides=None,
                overrides_hash=None,
                at=self.now(),
                client=client,
                call=call,
                call_status=status,
            )
            write_call(conn, entry, client, call, status)
        return entry

    def remembered(self, client: str, key: str) -> Remembered | None:
        """The answer kept for the client's Idempotency-Key, if any (status IN_FLIGHT: its
        request is being answered now)."""
        k = idempotency_keys.c
        with self.read() as conn:
            row = conn.execute(
                select(k.request_sha256, k.status, k.body, k.location).where(
                    k.client == client, k.key == key
                )
            ).first()
        if row is None:
            return None
        return Remembered(client, key, row.request_sha256, row.status, row.body, row.location)

    def reserve(
        self, client: str, key: str, request_sha256: str, stale_after_s: float
    ) -> Remembered | None:
        """Claim the client's Idempotency-Key for the request `request_sha256` before it is
        answered: None when this call now holds it; else the row that holds it (an answer, or
        another request IN_FLIGHT). The primary key makes the insert exclusive on both
        engines, so of requests racing under one key exactly one gets None. A reservation
        in flight for over `stale_after_s` (its server died answering) is taken over, by one
        caller only, when the same request comes again."""
        # The holder may release the key (its answer failed) between the insert that found it
        # taken and the read of who holds it: then the key is free again, and is tried anew.
        while True:
            held = self._reserve_once(client, key, request_sha256, stale_after_s)
            if held is not False:
                return held

    def _reserve_once(
        self, client: str, key: str, request_sha256: str, stale_after_s: float
    ) -> Remembered | Literal[False] | None:
        """One try of reserve: None (held now), the row that holds it, or False when the row
        that held it was released before it could be read."""
        stale_before = stamp(self.clock() - timedelta(seconds=stale_after_s))
        row: dict[str, Any] = {"client": client, "key": key, "request_sha256": request_sha256}
        row |= {"status": IN_FLIGHT, "body": "", "location": None, "created_at": self.now()}
        k = idempotency_keys.c
        with self.write(exclusive=False) as conn:
            if insert_new(conn, idempotency_keys, row, ["client", "key"]):
                return None
            taken = conn.execute(
                update(idempotency_keys)
                .where(
                    k.client == client,
                    k.key == key,
                    k.request_sha256 == request_sha256,
                    k.status == IN_FLIGHT,
                    k.created_at < stale_before,
                )
                .values(created_at=row["created_at"])
                .returning(k.key)
            ).first()
        if taken is not None:
            return None
        kept = self.remembered(client, key)
        return False if kept is None else kept

    def remember(
        self,
        client: str,
        key: str,
        request_sha256: str,
        status: int,
        body: str,
        location: str | None,
    ) -> Remembered:
        """Keep the answer to the client's Idempotency-Key reserved for `request_sha256`
        (reserve), or kept unreserved when none is kept yet; the one kept (the first answer
        wins, also between processes)."""
        row = {"client": client, "key": key, "request_sha256": request_sha256, "status": status}
        row |= {"body": body, "location": location, "created_at": self.now()}
        k = idempotency_keys.c
        with self.write(exclusive=False) as conn:
            if not insert_new(conn, idempotency_keys, row, ["client", "key"]):
                conn.execute(
                    update(idempotency_keys)
                    .where(
                        k.client == client,
                        k.key == key,
                        k.request_sha256 == request_sha256,
                        k.status == IN_FLIGHT,
                    )
                    .values(status=status, body=body, location=location)
                )
        kept = self.remembered(client, key)
        assert kept is not None  # written just now, or before
        return kept

    def release_key(self, client: str, key: str, request_sha256: str) -> None:
        """Give up the reservation `reserve` made, unanswered (the answer failed), so that a
        retry is tried afresh; an answer already kept stays."""
        k = idempotency_keys.c
        with self.write(exclusive=False) as conn:
            conn.execute(
                delete(idempotency_keys).where(
                    k.client == client,
                    k.key == key,
                    k.request_sha256 == request_sha256,
                    k.status == IN_FLIGHT,
                )
            )
