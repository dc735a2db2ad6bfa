"""The effective settings as `claims-crew config show` lists them: each variable, its value as
it would be written in the environment, and where it came from; secrets masked.

A secret is never shown, only whether it is set. A database URL is shown without its
password, which is the part that is secret.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from claims_crew.settings.declarations import GROUPS, Declared
from claims_crew.settings.loading import effective, variable

MASK = "****"


@dataclass(frozen=True)
class Shown:
    name: str
    value: str  # "" when unset
    source: str  # "environment", the file it was written in, or "default"
    group: str
    secret: bool

    def as_json(self) -> dict[str, str | bool]:
        return asdict(self)


def extra(field: str) -> dict[str, Any]:
    found = Declared.model_fields[field].json_schema_extra
    return found if isinstance(found, dict) else {}


def written(value: Any) -> str:
    """A value as it would be written in the environment."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, datetime):
        return value.isoformat()
    return f"{value:g}" if isinstance(value, float) else str(value)


def masked(value: str, name: str) -> str:
    """A secret's value as shown: its mask; a URL with its password masked, the rest shown."""
    if not value:
        return ""
    if not name.endswith("_URL"):
        return MASK
    parts = urlsplit(value)
    if parts.password is None:
        return value
    user = f"{parts.username}:" if parts.username else ":"
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}{MASK}@{host}{port}"))


def shown_settings() -> list[Shown]:
    """Every declared setting, in the reference's order (by group, then as declared)."""
    found = effective()
    rows = []
    for field in Declared.model_fields:
        name = variable(field)
        about = extra(field)
        value = written(getattr(found.values, field))
        secret = bool(about.get("secret"))
        rows.append(
            Shown(
                name,
                masked(value, name) if secret else value,
                found.sources[name],
                str(about.get("group", "")),
                secret,
            )
        )
    return sorted(rows, key=lambda row: GROUPS.index(row.group))
