"""Named shadows: decision stores beside production that a run can fill without touching it.

A shadow is a whole decision store of its own, `$CLAIMS_CREW_HOME/shadows/NAME.sqlite`, made by
the same `Store` class as production, so a shadow run decides every claim along the production
path: the same pipeline, rules, recording and audit entries, only into another file. Nothing of
production is opened by a shadow run: its decisions, review queue and audit chain stay as they
were. A shadow keeps its own audit chain, which is not production's and vouches for nothing
there; its escalations are what the config under test would have asked of a person, and nobody
reviews them.

The name becomes a file name, so it is held to a safe slug: letters, digits, `-` and `_`,
starting with a letter or digit, at most 64 characters. No dot, so never `..` or a suffix.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from claims_crew import settings
from claims_crew.errors import ShadowError

if TYPE_CHECKING:
    from claims_crew.store import Store

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def shadows_dir() -> Path:
    return settings.home() / "shadows"


def shadow_path(name: str) -> Path:
    """Where the shadow `name` lives; a name that is not a safe slug is refused."""
    if not NAME_PATTERN.fullmatch(name):
        raise ShadowError(
            f"shadow name {name!r} is not allowed: use 1 to 64 letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return shadows_dir() / f"{name}.sqlite"


def shadow_from_environment() -> str | None:
    """The shadow CLAIMS_CREW_SHADOW names, if set and not empty (checked when opened):
    `crewai run` takes no options, so the setting names the shadow for it (and for
    `claims-crew run` when --shadow is not given)."""
    shadow: str | None = settings.current().claims_crew_shadow
    return shadow


def open_shadow(name: str, fresh: bool = False) -> Store:
    """The shadow's store for a run, made on first use; `fresh` discards its earlier records
    first, so that every claim is reviewed again."""
    from claims_crew.store import Store  # here: a refused run never loads the store
    from claims_crew.store.engine import sqlite_files

    path = shadow_path(name)
    if fresh:
        for file in sqlite_files(path):
            file.unlink(missing_ok=True)
    return Store(path)


def existing_shadow(name: str) -> Store:
    """The shadow's store to read; a shadow no run has made is an error, never made empty."""
    path = shadow_path(name)
    if not path.is_file():
        known = sorted(p.stem for p in shadows_dir().glob("*.sqlite"))
        raise ShadowError(
            f"no shadow named {name!r} (looked for {path}); make it with "
            f"`claims-crew run --shadow {name}`"
            + (f"; shadows: {', '.join(known)}" if known else "")
        )
    from claims_crew.store import Store

    return Store(path)
