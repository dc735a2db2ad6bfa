"""Reviewers and their web sign-in sessions.

Neither a reviewer's token nor a session id is stored: only their SHA-256, so a copy of the
database signs nobody in. A session carries its own CSRF token and runs out after a working day.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, delete, func, insert, select
from sqlalchemy.exc import IntegrityError

from claims_crew.errors import StoreError
from claims_crew.records import ReviewerSettings, name_key
from claims_crew.store.base import StoreBase
from claims_crew.store.desk_rows import Permit, write_settings
from claims_crew.store.tables import reviewers, sessions
from claims_crew.vocabulary import stamp

SESSION_SECONDS = 8 * 3600


def token_sha256(text: str) -> str:
    """What is kept of a token or a session id: its SHA-256, never the text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def checked_name(name: str, what: str) -> str:
    """A person's or a system's name as kept: stripped, 1-64 characters, with no tabs or
    newlines (it is printed in tables and logs) and no ':' (actors read "human:NAME")."""
    name = name.strip()
    if not name or len(name) > 64 or any(ch in name for ch in "\r\n\t:"):
        raise StoreError(f"{what} name is 1-64 characters, with no tabs, newlines or ':'")
    return name


def token_owner(conn: Connection, token: str) -> str | None:
    """The reviewer whose sign-in token this is, if any."""
    name = conn.execute(
        select(reviewers.c.name).where(reviewers.c.token_sha256 == token_sha256(token))
    ).scalar()
    return None if name is None else str(name)


@dataclass(frozen=True)
class Session:
    reviewer: str
    csrf: str


class Reviewers(StoreBase):
    """Registering reviewers, signing them in by token, and their web sessions."""

    def add_reviewer(
        self,
        name: str,
        settings: ReviewerSettings | None = None,
        actor: str | None = None,
        *,
        note: str = "",
        first: bool = False,
        permit: Permit | None = None,
    ) -> str:
        """Register a reviewer with their settings (by default: any line, any amount, denials
        allowed); returns their sign-in token, kept only as a hash.

        A registration that says who made it (`actor`, e.g. `human:lee`; `note` is added to the
        entry's reason) is a `reviewer` audit entry; so is one with other than the default
        settings, by `code` where no actor is given; a person's (`human:NAME`) is judged by
        `permit` (desk.authority.desk_change_refusal). A name whose key (records.name_key) is
        already taken is refused: "Bo" after "bo". `first`: only while no reviewer exists, in
        the same transaction (setting up the first lead, with nobody yet to vouch for it)."""
        name = checked_name(name, "a reviewer")
        token = secrets.token_urlsafe(32)
        key = name_key(name)
        try:
            with self.write() as conn:
                if first and conn.execute(select(func.count()).select_from(reviewers)).scalar():
                    raise StoreError(
                        "reviewers exist already: act as one of them (their token in "
                        "CLAIMS_CREW_REVIEWER_TOKEN)"
                    )
                conn.execute(
                    insert(reviewers).values(
                        name=name,
                        name_key=key,
                        token_sha256=token_sha256(token),
                        created_at=self.now(),
                    )
                )
                # A reviewer registered with the defaults may do what every reviewer could
                # before roles existed, as the row alone says; other settings are an entry.
                settings = settings if settings is not None else ReviewerSettings()
                if actor is not None or settings != ReviewerSettings():
                    reason = f"registered reviewer {name}" + (f" ({note})" if note else "")
                    write_settings(
                        conn,
                        self.audit_key(),
                        self.now(),
                        name,
                        settings,
                        actor or "code",
                        reason,
                        permit,
                    )
        except IntegrityError as exc:
            raise StoreError(
                f"a reviewer named {self._holder(key) or name!r} already exists"
            ) from exc
        return token

    def _holder(self, key: str) -> str | None:
        """The name registered under `key`, as it was written."""
        with self.read() as conn:
            found = conn.execute(
                select(reviewers.c.name).where(reviewers.c.name_key == key)
            ).scalar()
        return None if found is None else str(found)

    def has_reviewers(self) -> bool:
        with self.read() as conn:
            return bool(conn.execute(select(func.count()).select_from(reviewers)).scalar())

    def open_session(self, reviewer: str) -> str:
        """A new random session id for a signed-in reviewer (kept hashed, with its CSRF token)."""
        session_id = secrets.token_urlsafe(32)
        expires = stamp(datetime.fromtimestamp(self.clock().timestamp() + SESSION_SECONDS, UTC))
        with self.write() as conn:
            conn.execute(delete(sessions).where(sessions.c.expires_at < self.now()))
            conn.execute(
                insert(sessions).values(
                    id_sha256=token_sha256(session_id),
                    reviewer=reviewer,
                    csrf=secrets.token_urlsafe(32),
                    expires_at=expires,
                )
            )
        return session_id

    def session(self, session_id: str) -> Session | None:
        with self.read() as conn:
            row = conn.execute(
                select(sessions.c.reviewer, sessions.c.csrf).where(
                    sessions.c.id_sha256 == token_sha256(session_id),
                    sessions.c.expires_at >= self.now(),
                )
            ).first()
        return None if row is None else Session(row.reviewer, row.csrf)

    def close_session(self, session_id: str) -> None:
        with self.write() as conn:
            conn.execute(delete(sessions).where(sessions.c.id_sha256 == token_sha256(session_id)))
