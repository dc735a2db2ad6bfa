"""What every command prints besides its own output: `--json` payloads, exit codes, and errors,
and whether output goes to a terminal.

Scripts branch on the exit codes and on the `{"error": {"code", "message"}}` shape
(docs/reviewing-escalations.md, docs/policy-library.md), so both are defined here once. The
library raises the errors of claims_crew.errors; `reports_errors` turns them into a line on
stderr, the JSON error with --json, and an exit code.

A terminal gets what is laid out for its width and redrawn: a progress bar, a table. Elsewhere
(a pipe, a file, a CI log, TERM=dumb) a table is still drawn 80 columns wide, folding words, and
a bar is drawn once at the end; so there a command prints plain lines (`plain_line`), each whole
whatever the width, which grep, an editor or a CI annotation can read: a run's heartbeat
(progress.py), `config check`'s `file:line: severity code: message`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click
from pydantic import BaseModel

from claims_crew.cli.safe_text import clean, json_text, plain
from claims_crew.errors import (
    AlreadyDecided,
    CheckpointError,
    ClaimsCrewError,
    DatabaseUnavailable,
    LabelError,
    NotFound,
    NotSignedIn,
    PolicyError,
    ShadowError,
    StoreError,
)
from claims_crew.settings.redact import redact

if TYPE_CHECKING:
    from rich.console import Console

F = TypeVar("F", bound=Callable[..., Any])

# The work ran and part of it failed: a claim in `run`, the chain in `audit verify`.
EXIT_FAILED = 1
# Refused: a bad config, policy, case or labels file, a bad or missing shadow, or a store
# refusal (click's usage errors exit 2 as well).
EXIT_BAD_INPUT = 2
# No such clause, claim, escalation or reviewer.
EXIT_NOT_FOUND = 3
# Someone else decided the escalation first.
EXIT_CONFLICT = 4

json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")


def emit_json(payload: object) -> None:
    """A --json payload on stdout: a pydantic model as it serialises itself, else plain JSON;
    control characters from a claim or a model only ever as escapes."""
    if isinstance(payload, BaseModel):
        click.echo(json_text(payload.model_dump_json(indent=2)))
    else:
        click.echo(json_text(json.dumps(payload, ensure_ascii=False, indent=2)))


def is_terminal(console: Console) -> bool:
    """Whether `console` is a terminal that lays output out and redraws it; else plain lines."""
    return console.is_terminal and not console.is_dumb_terminal


def plain_line(console: Console, text: str) -> None:
    """Outside text as one plain line: never markup or highlighted, never wrapped or cut."""
    console.print(plain(text), highlight=False, soft_wrap=True)


@contextmanager
def working(what: str, as_json: bool = False) -> Iterator[None]:
    """Say what a command that may take over a second is doing (loading its modules, reading
    the store, the policies) before it does it, on stderr so that stdout stays its output: a
    spinner in a terminal, gone when done; elsewhere one plain line, which a log keeps. With
    --json no line: a program reads that output, and its exit code says how it went."""
    from rich.console import Console

    console = Console(stderr=True)
    if is_terminal(console):
        with console.status(plain(what)):
            yield
        return
    if not as_json:
        plain_line(console, what)
    yield


def fail(
    code: str,
    message: str,
    exit_code: int,
    as_json: bool = False,
    *,
    show_code: bool = True,
    **extra: Any,
) -> NoReturn:
    """Print the error (and its JSON with --json) and exit. `show_code=False` leaves the code
    off the stderr line, for a message that already names the file at fault. A configured
    secret in the message (a provider's error may quote its key) is blanked out first."""
    message = redact(message)
    if as_json:
        emit_json({"error": {"code": code, "message": message, **extra}})
    # The message may quote a claim file or a provider: shown, never obeyed, by the terminal.
    shown = clean(message)
    click.echo(f"error [{code}]: {shown}" if show_code else f"error: {shown}", err=True)
    sys.exit(exit_code)


def fail_with(
    exc: ClaimsCrewError, as_json: bool = False, exit_code: int | None = None
) -> NoReturn:
    """`fail` for one of the library's errors; `exit_code` overrides the error's own."""
    extra: dict[str, Any] = {}
    show_code = True
    if isinstance(exc, AlreadyDecided):
        code, default_exit = "already_decided", EXIT_CONFLICT
        extra = {
            "decided_by": exc.decided_by,
            "decided_at": exc.decided_at,
            "decision": exc.decision,
        }
    elif isinstance(exc, NotFound):
        code, default_exit = "not_found", EXIT_NOT_FOUND
    elif isinstance(exc, NotSignedIn):
        code, default_exit = "not_signed_in", EXIT_BAD_INPUT
    elif isinstance(exc, DatabaseUnavailable):
        code, default_exit = "database_unavailable", EXIT_FAILED
    elif isinstance(exc, StoreError):
        code, default_exit = "refused", EXIT_BAD_INPUT
    elif isinstance(exc, PolicyError):
        code, default_exit = exc.code, EXIT_BAD_INPUT
    elif isinstance(exc, ShadowError):
        code, default_exit = "shadow", EXIT_BAD_INPUT
    else:
        # A labels, config, case, claim or checkpoint file, a model that cannot be built, or
        # no audit key: the message names the file or the setting.
        code = (
            "labels"
            if isinstance(exc, LabelError)
            else "checkpoint"
            if isinstance(exc, CheckpointError)
            else "config"
        )
        default_exit, show_code = EXIT_BAD_INPUT, False
    fail(
        code,
        str(exc),
        default_exit if exit_code is None else exit_code,
        as_json,
        show_code=show_code,
        **extra,
    )


def reports_errors(func: F) -> F:
    """Turn the library's errors raised by a command into `fail_with` (JSON if --json was given)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ClaimsCrewError as exc:
            fail_with(exc, bool(kwargs.get("as_json")))

    return wrapper  # type: ignore[return-value]
