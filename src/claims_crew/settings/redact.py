"""Keys never leave in error text: every configured secret is blanked out of a message.

A provider's error carries the body of its answer, and a gateway or proxy in front of a provider
may echo the request's headers there, the key in `Authorization: Bearer <key>` included (hosted
providers mask the key; many gateways do not). That text becomes the claim's failure: printed
in the run's line and table, kept in the store, written to the claim's log. So an exception
becomes text through `error_text` (or its message through `redact`), a failure's message is
redacted again as the record is made (records.RunError), and the handlers of the claim log and
the terminal carry `RedactingFilter`, so a logged traceback is redacted too.

The secrets are the settings' own list (settings/secrets.py), read when a message is redacted,
never kept: every setting declared secret wherever it was set (the environment, claims-crew.toml
or pyproject.toml), the password of any URL setting, the audit key file's text, and variables
of the environment named like a secret that no setting declares (a webhook's secret). Each is
blanked as written and in the encodings a message may carry it in (URL-encoded, JSON-escaped,
base64), replaced by the name of what holds it. A value shorter than MIN_SECRET_CHARS is left
alone: blanking a four-letter value would blank that word everywhere, and no provider issues a
key that short. And the password of every URL in a message is masked, held by a setting or not.
"""

from __future__ import annotations

import base64
import json
import logging
from urllib.parse import quote, quote_plus

from claims_crew.settings.masking import without_passwords
from claims_crew.settings.secrets import secrets as settings_secrets

MIN_SECRET_CHARS = 8

# (what the message carries, the variable it stands for), longest first.
Secrets = tuple[tuple[str, str], ...]


def configured_secrets() -> Secrets:
    """Every secret configured now, in each form a message may carry it, longest first (a key
    that holds another is blanked whole)."""
    found: dict[str, str] = {}
    for value, name in settings_secrets():
        _add(found, value, name)
    return tuple(sorted(found.items(), key=lambda item: (-len(item[0]), item[0])))


def redact(text: str, secrets: Secrets | None = None) -> str:
    """`text` with every secret replaced by `[redacted: VARIABLE]`, and every URL's password
    masked."""
    for form, name in configured_secrets() if secrets is None else secrets:
        if form in text:
            text = text.replace(form, f"[redacted: {name}]")
    return without_passwords(text)


def error_text(exc: BaseException) -> str:
    """What is said of an exception anywhere it leaves the process: its type and message, with
    every secret blanked."""
    return redact(f"{type(exc).__name__}: {exc}")


def _add(found: dict[str, str], value: str, name: str) -> None:
    if len(value) < MIN_SECRET_CHARS:
        return
    raw = value.encode("utf-8")
    forms = {
        value,
        quote(value, safe=""),
        quote_plus(value),
        json.dumps(value)[1:-1],
        repr(value)[1:-1],
        base64.b64encode(raw).decode("ascii").rstrip("="),
        base64.urlsafe_b64encode(raw).decode("ascii").rstrip("="),
    }
    for form in forms:
        found.setdefault(form, name)


class RedactingFilter(logging.Filter):
    """Blanks every secret out of a record before a handler writes it: its message, its
    traceback and its stack. The record itself is changed, so every handler after this one
    writes the redacted text too."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = configured_secrets()
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit: the handler reports it
            return True
        record.msg, record.args = redact(message, secrets), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, secrets)
        return True
