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

The command line has no address: its attempts are counted by the reviewer name they claim
(`command_line_client`), not by the OS user, which whoever runs the command sets as they like
(USER, LOGNAME). A name can be changed as freely, so the command line's failures, every name
together, also meet a ceiling: past `command_line_ceiling` of them in the window, every
command-line sign-in is refused until the oldest leaves it. A hard stop rather than a wait, as
guessing there needs no network; the page's sign-ins are not counted against it, so a crowd of
guessers on the page cannot lock the command line out, nor the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, delete, func, insert, select

from claims_crew.errors import SignInThrottled
from claims_crew.records import name_key
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
    command_line_ceiling: int = 20


DEFAULT_LIMITS = SignInLimits()
# How the command line's attempts are named in the table (the page's are addresses).
COMMAND_LINE = "cli:"


def command_line_client(claimed: str | None) -> str:
    """Whom a command-line attempt is counted for: the reviewer name it claims (as the desk
    compares names), or no name."""
    return f"{COMMAND_LINE}reviewer:{name_key(claimed) if claimed else ''}"


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


def _ceiling_wait(conn: Connection, ceiling: int, window_s: float, now: float) -> float:
    """Seconds until the command line's failures, every name together, are below `ceiling`:
    until the ceiling-th latest leaves the window."""
    latest: list[float] = list(
        conn.execute(
            select(sign_in_attempts.c.at)
            .where(sign_in_attempts.c.client.startswith(COMMAND_LINE, autoescape=True))
            .order_by(sign_in_attempts.c.at.desc())
            .limit(ceiling)
        )
        .scalars()
        .all()
    )
    if not latest or len(latest) < ceiling:
        return 0.0
    return float(latest[-1]) + window_s - now


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
            if client.startswith(COMMAND_LINE):
                ceiling = _ceiling_wait(conn, limits.command_line_ceiling, limits.window_s, now)
                wait = max(wait, ceiling)
            if wait <= 0:
                attempt: int = conn.execute(
                    insert(sign_in_attempts)
                    .values(client=client, at=now)
                    .returning(sign_in_attempts.c.id)
                ).scalar_one()
                return int(attempt)
        raise SignInThrottled(wait)
