"""How a secret is kept out of what is shown: which settings are secret, what looks like a key,
and a URL's password masked wherever a text carries one. Pure functions of text.

`config show` masks a secret setting whole and every URL's password (MODEL_BASE_URL's, the
fallback's, OLLAMA_HOST's: a gateway's `user:password@` is as secret as a key); a refused value
is named by its setting, never said, when it is a secret or looks like a key (a key pasted into
the wrong variable); and redaction (settings/redact.py) masks every URL's password in an error's
text, whether or not a setting holds it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from urllib.parse import urlsplit

from claims_crew.settings.declarations import Declared

MASK = "****"

# The variables of the settings declared secret (declarations.py marks them).
SECRET_VARIABLES = frozenset(
    field.upper()
    for field, info in Declared.model_fields.items()
    if isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("secret")
)

# How providers' keys begin: OpenAI's and Anthropic's (sk-, sk-ant-), Google's (AIza).
KEY_PREFIXES = ("sk-", "AIza")
# A token this long, of one word's characters, with letters and digits mixed and characters
# this varied (bits a character, Shannon's measure), is taken for a key: a generated key has
# about 5 to 6 bits a character; a word, a number or a path far fewer, or a space or a slash.
TOKEN_CHARS = 20
TOKEN_BITS = 3.5
_TOKEN = re.compile(r"[A-Za-z0-9_\-+=.]+")

# scheme://user:password@ in any text. As urlsplit reads it: the user ends at the first colon,
# and the password runs to the last @ before the host part ends (at /, ?, # or a space).
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/?#\s:@]*):[^/?#\s]*@")


def looks_like_key(text: str) -> bool:
    """Whether a value looks like a key or token: a provider's prefix, or long and random."""
    value = text.strip()
    if value.startswith(KEY_PREFIXES):
        return True
    if len(value) < TOKEN_CHARS or not _TOKEN.fullmatch(value):
        return False
    if not (any(c.isalpha() for c in value) and any(c.isdigit() for c in value)):
        return False
    return _bits_per_char(value) >= TOKEN_BITS


def _bits_per_char(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def url_password(value: str) -> str | None:
    """The password of a URL (`scheme://user:password@host`), if the value is one with one."""
    if "@" not in value:
        return None
    try:
        return urlsplit(value.strip()).password
    except ValueError:
        return None


def without_passwords(text: str) -> str:
    """`text` with the password of every URL in it masked; the rest, user and host, shown."""
    if "@" not in text:
        return text
    return _URL_PASSWORD.sub(lambda found: f"{found['head']}:{MASK}@", text)


def shown_value(variable: str, value: str) -> str:
    """A setting's value as it may be shown: a secret's mask (a database URL's is its
    password's), else the value with its URL passwords masked."""
    if not value:
        return ""
    if variable in SECRET_VARIABLES and not variable.endswith("_URL"):
        return MASK
    return without_passwords(value)


def sayable(variable: str, value: object) -> bool:
    """Whether a refused value may be quoted back: never a secret's, nor one like a key."""
    return variable not in SECRET_VARIABLES and not looks_like_key(str(value))
