"""Running `claims-crew` as a reviewer: with their sign-in token, as a person must.

Every command that acts as a person (decide, confirm, return, assign, and the desk's changes)
reads the token from CLAIMS_CREW_REVIEWER_TOKEN; `as_reviewer(token, ...)` runs one with it set,
and with `None` with it unset whatever the test's own environment holds.
"""

from __future__ import annotations

from click.testing import CliRunner, Result

from claims_crew.cli import main
from claims_crew.cli.acting import TOKEN_VARIABLE


def as_reviewer(token: str | None, *args: str) -> Result:
    """`claims-crew ARGS` as the reviewer whose token this is (None: no token at all)."""
    return CliRunner().invoke(main, list(args), env={TOKEN_VARIABLE: token})


def decide(token: str | None, ref: str, decision: str, reason: str, *more: str) -> Result:
    """`claims-crew review decide REF --decision D --reason R [MORE]` with this token."""
    return as_reviewer(
        token, "review", "decide", ref, "--decision", decision, "--reason", reason, *more
    )
