"""Reviewers and their web sign-in sessions.

Neither a reviewer's token nor a session id is stored: only their SHA-256, so a copy of the
database signs nobody in. A session carries its own CSRF token and runs out after a working day.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

from claims_crew.errors import StoreError
from claims_crew.store.base import StoreBase
from claims_crew.vocabulary import stamp

SESSION_SECONDS = 8 * 3600


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def token_owner(conn: sqlite3.Connection, token: str) -> str | None:
    """The reviewer whose sign-in token this is, if any."""
    row = conn.execute(
        "SELECT name FROM reviewers WHERE token_sha256 = ?", (_sha256(token),)
    ).fetchone()
    return str(row[0]) if row else None


@dataclass(frozen=True)
class Session:
    reviewer: str
    csrf: str


class Reviewers(StoreBase):
    """Registering reviewers, signing them in by token, and their web sessions."""

    def add_reviewer(self, name: str) -> str:
        """Register a reviewer; returns their sign-in token, which is kept only as a hash."""
        name = name.strip()
        if not name or len(name) > 64 or any(ch in name for ch in "\r\n\t:"):
            raise StoreError("a reviewer name is 1-64 characters, with no tabs, newlines or ':'")
        token = secrets.token_urlsafe(32)
        with self.write() as conn:
            try:
                conn.execute(
                    "INSERT INTO reviewers (name, token_sha256, created_at) VALUES (?, ?, ?)",
                    (name, _sha256(token), self.now()),
                )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"a reviewer named {name!r} already exists") from exc
        return token

    def reviewer_for_token(self, token: str) -> str | None:
        with self.read() as conn:
            return token_owner(conn, token)

    def open_session(self, reviewer: str) -> str:
        """A new random session id for a signed-in reviewer (kept hashed, with its CSRF token)."""
        session_id = secrets.token_urlsafe(32)
        expires = stamp(datetime.fromtimestamp(self.clock().timestamp() + SESSION_SECONDS, UTC))
        with self.write() as conn:
            conn.execute("DELETE FROM sessions WHERE expires_at < ?", (self.now(),))
            conn.execute(
                "INSERT INTO sessions (id_sha256, reviewer, csrf, expires_at) VALUES (?, ?, ?, ?)",
                (_sha256(session_id), reviewer, secrets.token_urlsafe(32), expires),
            )
        return session_id

    def session(self, session_id: str) -> Session | None:
        with self.read() as conn:
            row = conn.execute(
                "SELECT reviewer, csrf FROM sessions WHERE id_sha256 = ? AND expires_at >= ?",
                (_sha256(session_id), self.now()),
            ).fetchone()
        return Session(*row) if row else None

    def close_session(self, session_id: str) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM sessions WHERE id_sha256 = ?", (_sha256(session_id),))
