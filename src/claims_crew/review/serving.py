"""The review page as uvicorn runs it: an app factory each serving process calls for itself.

`claims-crew serve --workers N` runs N processes. uvicorn starts each one fresh and builds its
app by importing `app_from_environment` and calling it, so the serve command's choices (the
Host names to accept, whether the page is reached over HTTPS) travel to the processes in one
environment variable, as JSON, and each process opens its own connections to the store. The
store is the one every command opens (CLAIMS_CREW_DATABASE_URL, else the SQLite file), so every
process serves the same queue, sessions and audit chain: a reviewer who signed in through one
process is known to all of them.
"""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict

from claims_crew.api.app import ApiSettings
from claims_crew.errors import ConfigError
from claims_crew.review.web import create_app
from claims_crew.run.stale import current_project
from claims_crew.store import Store

SETTINGS_VARIABLE = "CLAIMS_CREW_SERVE_SETTINGS"
# What uvicorn imports in each process (with factory=True it calls it).
APP_FACTORY = "claims_crew.review.serving:app_from_environment"


def http_protocol() -> str:
    """uvicorn's `http`: the protocol that shows the app an absolute-form target's host
    (protocol.py), or h11, which shows the whole target, where httptools is missing."""
    return "claims_crew.review.protocol:HostFromTarget" if find_spec("httptools") else "h11"


class ServeSettings(BaseModel):
    """What `serve` decides once for every process."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allowed_hosts: list[str]
    """Host headers to accept; any other is refused (403)."""
    secure_cookies: bool = False
    """The page is reached over HTTPS only: every cookie is Secure."""


def export_settings(settings: ServeSettings) -> None:
    """Put the settings where the processes uvicorn starts will find them."""
    os.environ[SETTINGS_VARIABLE] = settings.model_dump_json()


def app_from_environment() -> FastAPI:
    """The review app of this process, from the settings `serve` exported."""
    raw = os.environ.get(SETTINGS_VARIABLE)
    if raw is None:
        raise ConfigError(f"{SETTINGS_VARIABLE} is not set: start the page with claims-crew serve")
    settings = ServeSettings.model_validate_json(raw)
    return create_app(
        Store(),
        settings.allowed_hosts,
        project=current_project,
        secure_cookies=settings.secure_cookies,
        appeal=page_appeal,
        api=ApiSettings.from_environment(appeal=page_appeal),
    )


def page_appeal(claim_id: str, files: list[Path], reason: str) -> str | None:
    """An appeal from the page, run by this process on the store every command opens."""
    from claims_crew.run.appeal import appeal_from_page  # CrewAI: only once an appeal comes

    return appeal_from_page(Store(), claim_id, files, reason)
