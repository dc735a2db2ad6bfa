"""The effective settings as `claims-crew config show` lists them: each variable, its value as
it would be written in the environment, and where it came from; secrets masked.

A secret is never shown, only whether it is set. A URL, the database's, a gateway's or
Ollama's, is shown without its password, which is the part that is secret (masking.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from claims_crew.settings.declarations import GROUPS, Declared
from claims_crew.settings.loading import effective, variable
from claims_crew.settings.masking import shown_value
from claims_crew.settings.paths import config_dir, home, policies_dir

# The settings whose default is no value but a folder worked out where it is used (paths.py):
# shown as that folder, so a row says what is in use rather than that nothing is.
IN_USE_BY_DEFAULT: dict[str, Callable[[], Path]] = {
    "claims_crew_home": home,
    "claims_crew_config": config_dir,
    "claims_crew_policies": policies_dir,
}


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


def shown_settings() -> list[Shown]:
    """Every declared setting, in the reference's order (by group, then as declared)."""
    found = effective()
    rows = []
    for field in Declared.model_fields:
        name = variable(field)
        about = extra(field)
        value = written(getattr(found.values, field))
        if not value and field in IN_USE_BY_DEFAULT:
            value = str(IN_USE_BY_DEFAULT[field]())
        secret = bool(about.get("secret"))
        rows.append(
            Shown(
                name,
                shown_value(name, value),
                found.sources[name],
                str(about.get("group", "")),
                secret,
            )
        )
    return sorted(rows, key=lambda row: GROUPS.index(row.group))
