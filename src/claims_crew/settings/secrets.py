"""The one list of secrets that redaction reads (settings/redact.py blanks each out of an error's
text): every secret configured now, with what holds it.

- each setting declared secret (declarations.py), wherever it was set: the environment,
  `claims-crew.toml` or `[tool.claims-crew]` in pyproject.toml; a provider key written in the
  settings file is sent to the provider as one in the environment is, so it is as secret;
- the password of any setting that is a URL (`MODEL_BASE_URL`, `OLLAMA_HOST`, the database's);
- the audit key file in the home folder (CLAIMS_CREW_AUDIT_KEY's default);
- variables of the environment that no setting declares but that are named like a secret
  (ending in KEY, TOKEN, SECRET, PASSWORD or PASSWD) or are URLs with a password: a webhook
  endpoint's secret (its `secret_env`), the keys CrewAI's other providers read on their own
  (AZURE_API_KEY, AWS_SECRET_ACCESS_KEY).

Read afresh at each call (the settings are cached until they change; the key file until it
does), never kept, so a key set or changed mid-run is blanked from then on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from claims_crew.errors import ConfigError
from claims_crew.settings.loading import VARIABLES, given
from claims_crew.settings.masking import SECRET_VARIABLES, url_password
from claims_crew.settings.paths import home

# An undeclared variable whose name ends so holds a secret, whatever else it is called.
SECRET_NAME_ENDINGS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD")
# The audit key file in CLAIMS_CREW_HOME (store/audit_key.py keeps it; its name is repeated
# here so that reading the secrets never loads the store).
AUDIT_KEY_FILE = "audit.key"
AUDIT_KEY_FILE_NAME = "the audit key file"

# (a secret's value, what holds it: a variable's name, "the password in NAME", or the file).
Secret = tuple[str, str]


def secrets(env: Mapping[str, str] | None = None) -> list[Secret]:
    """Every secret configured now, with what holds it; blank values left out."""
    found: list[Secret] = []
    for name, raw in sorted(given().items()):
        value = str(raw).strip()
        if name in SECRET_VARIABLES:
            found.append((value, name))
        elif (password := url_password(value)) is not None:
            found.append((password, f"the password in {name}"))
    env = os.environ if env is None else env
    for name, value in sorted(env.items()):
        if name.upper() in VARIABLES:
            continue  # a setting: read above, from wherever it was set
        if name.upper().endswith(SECRET_NAME_ENDINGS):
            found.append((value.strip(), name))
        elif (password := url_password(value)) is not None:
            found.append((password, f"the password in {name}"))
    key_text = _file_text(_home() / AUDIT_KEY_FILE)
    if key_text:
        found.append((key_text, AUDIT_KEY_FILE_NAME))
    return [(value, name) for value, name in found if value]


def _home() -> Path:
    """The home folder; its default when a bad setting is what is being reported (reading the
    secrets for that message must not fail on the same setting)."""
    try:
        return home()
    except ConfigError:
        return Path.cwd() / ".claims-crew"


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
