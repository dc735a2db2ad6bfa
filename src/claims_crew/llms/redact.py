"""Keys never leave in error text: every configured secret is blanked out of a message.

A provider's error carries the body of its answer, and a gateway or proxy in front of a provider
may echo the request's headers there, the key in `Authorization: Bearer <key>` included (hosted
providers mask the key; many gateways do not). That text becomes the claim's failure: printed
in the run's line and table, kept in the store, written to the claim's log. So an exception
becomes text through `error_text` (or its message through `redact`), a failure's message is
redacted again as the record is made (records.RunError), and the handlers of the claim log and
the terminal carry `RedactingFilter`, so a logged traceback is redacted too.

The secrets are read from the environment when a message is redacted, never kept: every
variable named like a key, token, secret or password (the providers' OPENAI_API_KEY,
ANTHROPIC_API_KEY, GEMINI_API_KEY and GOOGLE_API_KEY, each agent's POLICY_MODEL_API_KEY and the
like, CLAIMS_CREW_FALLBACK_API_KEY, CLAIMS_CREW_AUDIT_KEY), the password of any URL setting
(a gateway's or the database's `user:password@`), and the audit key file's text. Each is
blanked as written and in the encodings a message may carry it in (URL-encoded, JSON-escaped,
base64), replaced by the name of the variable that holds it. A value shorter than
MIN_SECRET_CHARS is left alone: blanking a four-letter value would blank that word everywhere,
and no provider issues a key that short.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote, quote_plus, urlsplit

from claims_crew import settings
from claims_crew.errors import ConfigError

MIN_SECRET_CHARS = 8
# A variable whose name ends so holds a secret, whatever else it is called.
SECRET_NAME_ENDINGS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD")
# The audit key file in CLAIMS_CREW_HOME (store/audit_key.py keeps it; its name is repeated
# here so that redacting a message never loads the store).
AUDIT_KEY_FILE = "audit.key"

# (what the message carries, the variable it stands for), longest first.
Secrets = tuple[tuple[str, str], ...]


def configured_secrets(env: Mapping[str, str] | None = None) -> Secrets:
    """Every secret configured now, in each form a message may carry it, longest first (a key
    that holds another is blanked whole)."""
    env = env if env is not None else os.environ
    found: dict[str, str] = {}
    for name, value in sorted(env.items()):
        upper = name.upper()
        if upper.endswith(SECRET_NAME_ENDINGS):
            _add(found, value.strip(), name)
        elif upper.endswith("_URL"):
            _add(found, _url_password(value), f"the password in {name}")
    home = env.get("CLAIMS_CREW_HOME")
    key_file = (Path(home) if home else _home()) / AUDIT_KEY_FILE
    _add(found, _file_text(key_file), "the audit key file")
    return tuple(sorted(found.items(), key=lambda item: (-len(item[0]), item[0])))


def redact(text: str, secrets: Secrets | None = None) -> str:
    """`text` with every secret replaced by `[redacted: VARIABLE]`."""
    for form, name in configured_secrets() if secrets is None else secrets:
        if form in text:
            text = text.replace(form, f"[redacted: {name}]")
    return text


def error_text(exc: BaseException) -> str:
    """What is said of an exception anywhere it leaves the process: its type and message, with
    every secret blanked."""
    return redact(f"{type(exc).__name__}: {exc}")


def _home() -> Path:
    """The home folder; its default when a bad setting is what is being reported (redacting
    that message must not fail on the same setting)."""
    try:
        return settings.home()
    except ConfigError:
        return Path.cwd() / ".claims-crew"


def _add(found: dict[str, str], value: str | None, name: str) -> None:
    if not value or len(value) < MIN_SECRET_CHARS:
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


def _url_password(value: str) -> str | None:
    try:
        return urlsplit(value.strip()).password
    except ValueError:
        return None


def _file_text(path: Path) -> str | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return _read_once(str(path), info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=8)
def _read_once(path: str, _mtime_ns: int, _size: int) -> str | None:
    """The file's text, read again only when it changed (a report redacts many records)."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


class RedactingFilter(logging.Filter):
    """Blanks every secret out of a record before a handler writes it: its message, its
    traceback and its stack. The record itself is changed, so every handler after this one
    writes the redacted text too."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = configured_secrets()
        if not secrets:
            return True
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
