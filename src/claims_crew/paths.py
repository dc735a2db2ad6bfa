"""Where claims-crew keeps its data; environment variables move it (tests point it at tmp)."""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """CLAIMS_CREW_HOME, or `.claims-crew/` in the project folder."""
    return Path(os.environ.get("CLAIMS_CREW_HOME") or Path.cwd() / ".claims-crew")


def policies_dir() -> Path:
    """CLAIMS_CREW_POLICIES, or `policies/` in the project folder."""
    return Path(os.environ.get("CLAIMS_CREW_POLICIES") or Path.cwd() / "policies")


def policy_cache_dir() -> Path:
    return home() / "cache" / "policy-index"


def config_dir() -> Path:
    """CLAIMS_CREW_CONFIG, or `config/` in the project folder."""
    return Path(os.environ.get("CLAIMS_CREW_CONFIG") or Path.cwd() / "config")


def inbox_dir() -> Path:
    return Path.cwd() / "claims" / "inbox"
