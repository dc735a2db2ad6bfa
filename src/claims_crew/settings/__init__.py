"""Every setting, declared once (declarations.py), read from the environment over an optional
settings file (loading.py), and the views the rest of the code takes of them: the folders
(paths.py) and the model and run limits (limits.py).

No other module reads the environment for a named setting: each calls `current()` (or a view)
where it needs one. Left to the environment itself: the variables set for CrewAI before it is
imported (`keep_crewai_at_home`), a child process's environment, and the provider keys that
CrewAI's clients read on their own.
"""

from claims_crew.settings.limits import Limits, rpm_share, workers_from_environment
from claims_crew.settings.loading import current, effective, variables
from claims_crew.settings.paths import (
    config_dir,
    crewai_dir,
    home,
    inbox_dir,
    keep_crewai_at_home,
    local_model_cache_dir,
    policies_dir,
    policy_cache_dir,
)

__all__ = [
    "Limits",
    "config_dir",
    "crewai_dir",
    "current",
    "effective",
    "home",
    "inbox_dir",
    "keep_crewai_at_home",
    "local_model_cache_dir",
    "policies_dir",
    "policy_cache_dir",
    "rpm_share",
    "variables",
    "workers_from_environment",
]
