"""Signing in with a reviewer token, throttled per client and overall.

A reviewer token is 256 random bits, so guessing one is hopeless; the throttle keeps it so
however fast the page answers, and keeps a guessing client from loading the store. Its state
lives in the store, not in the process, because the page may run as several workers: each
attempt is reserved in one write transaction and counts as a failure until its token proves
right, so workers racing one another still let no more guesses through than the limits allow.

For one client (its address) and for everyone together, the failures of the last `window_s`
seconds are counted. The first `free` of them cost nothing; after that each attempt must wait
2^(failures - free) seconds after the latest failure, up to a cap: fifteen minutes for one
client, one minute overall, so that a crowd of guessers slows every sign-in to about one a
minute rather than locking reviewers out for long. A throttled attempt is refused without its
token being looked at, and is not counted, so the wait does not grow while a client keeps
knocking. Sessions already signed in are not affected.

Behind a reverse proxy every request comes from the proxy's address, and the per-client limit
becomes a second overall one, unless `serve --trusted-proxy` names the proxy: only then are its
forwarded headers believed (any client can write them).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, delete, func, insert, select

from claims_crew.errors import SignInThrottled
from claims_crew.store.base import StoreBase
from claims_crew.store.reviewers import token_owner
from claims_crew.store.tables import sign_in_attempts


@dataclass(frozen=True)
class SignInLimits:
    """How many wrong tokens pass before waits begin, and how long the waits may grow."""

    window_s: float = 900.0
    client_free: int = 5
    client_max_wait_s: float = 900.0
    global_free: int = 50
    global_max_wait_s: float = 60.0


DEFAULT_LIMITS = SignInLimits()


def wait_after(failures: int, free: int, cap: float) -> float:
    """Seconds to wait after the latest failure, when `failures` failures are on record."""
    if failures < free:
        return 0.0
    return min(2.0 ** min(failures - free, 30), cap)


def _wait(conn: Connection, client: str | None, free: int, cap: float, now: float) -> float:
    """Seconds `client` (None: everyone) must still wait, from the failures on record."""
    query = select(func.count().label("failures"), func.max(sign_in_attempts.c.at).label("latest"))
    if client is not None:
        query = query.where(sign_in_attempts.c.client == client)
    seen = conn.execute(query).one()
    if not seen.failures:
        return 0.0
    return float(seen.latest) + wait_after(int(seen.failures), free, cap) - now


class SignIns(StoreBase):
    """Sign-in by token, with the attempts of every worker counted in one table."""

    def sign_in(self, token: str, client: str, limits: SignInLimits = DEFAULT_LIMITS) -> str | None:
        """The reviewer whose token this is, or None for a wrong one (which is counted).

        Raises SignInThrottled, without looking at the token, while `client` or everyone must
        wait."""
        attempt = self._reserve(client, limits)
        with self.read() as conn:
            name = token_owner(conn, token)
        if name is not None:
            with self.write() as conn:
                conn.execute(delete(sign_in_attempts).where(sign_in_attempts.c.id == attempt))
        return name

    def _reserve(self, client: str, limits: SignInLimits) -> int:
        """Count one attempt for `client`, as a failure until it proves right; refuse it
        instead while a wait is due."""
        now = self.clock().timestamp()
        with self.write() as conn:
            conn.execute(
                delete(sign_in_attempts).where(sign_in_attempts.c.at < now - limits.window_s)
            )
            wait = max(
                _wait(conn, client, limits.client_free, limits.client_max_wait_s, now),
                _wait(conn, None, limits.global_free, limits.global_max_wait_s, now),
            )
            if wait <= 0:
                attempt: int = conn.execute(
                    insert(sign_in_attempts)
                    .values(client=client, at=now)
                    .returning(sign_in_attempts.c.id)
                ).scalar_one()
                return int(attempt)
        raise SignInThrottled(wait)
