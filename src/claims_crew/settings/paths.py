"""Where claims-crew keeps its data; settings move it (tests point it at tmp).

CrewAI keeps data of its own too, so `keep_crewai_at_home` points it into the same folder before
CrewAI is imported: every file of a run then lives under CLAIMS_CREW_HOME.
"""

from __future__ import annotations

import os
from pathlib import Path

from claims_crew.settings.loading import current


def home() -> Path:
    """CLAIMS_CREW_HOME, or `.claims-crew/` in the project folder."""
    return Path(current().claims_crew_home or Path.cwd() / ".claims-crew")


def policies_dir() -> Path:
    """CLAIMS_CREW_POLICIES, or `policies/` in the project folder."""
    return Path(current().claims_crew_policies or Path.cwd() / "policies")


def policy_cache_dir() -> Path:
    return home() / "cache" / "policy-index"


def local_model_cache_dir() -> Path:
    """Where the local model's re-encoded weights are kept (llms/local_weights.py)."""
    return home() / "cache" / "local-model"


def config_dir() -> Path:
    """CLAIMS_CREW_CONFIG, or `config/` in the project folder."""
    return Path(current().claims_crew_config or Path.cwd() / "config")


def inbox_dir() -> Path:
    return Path.cwd() / "claims" / "inbox"


def crewai_dir() -> Path:
    """Where CrewAI keeps its files: `crewai/` in the home folder, as an absolute path."""
    return (home() / "crewai").absolute()


def keep_crewai_at_home() -> None:
    """Set the environment CrewAI reads so that it sends nothing and writes only under home().

    Call it before CrewAI is imported: some of its modules read these when they are. A variable
    the user set is left as it is (a user may turn telemetry on).

    - Telemetry (crewai_core/telemetry.py, `_is_telemetry_disabled`): spans go to CrewAI's
      collector unless OTEL_SDK_DISABLED or CREWAI_DISABLE_TELEMETRY is true.
    - Tracing (crewai/events/listeners/tracing/utils.py, `should_enable_tracing`):
      CREWAI_TRACING_ENABLED=false is an explicit no. Without it, the first run in a terminal
      asks whether to share the run's trace (prompts, claim text) with CrewAI.
    - Storage (crewai_core/paths.py, `db_storage_path`): every kickoff's task outputs, the
      claim's whole text included, go to a SQLite file in a folder named by CREWAI_STORAGE_DIR,
      else by the current folder's name, inside the user's data folder. A relative name is
      still taken inside that folder, so the path given is absolute.
    """
    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
    os.environ.setdefault("OTEL_SDK_DISABLED", "true")
    os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
    os.environ.setdefault("CREWAI_STORAGE_DIR", str(crewai_dir()))
