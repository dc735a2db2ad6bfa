"""Point a CrewBase crew at the project's config/ folder, and refuse a missing YAML file.

No upstream issue; CrewAI behaviour (1.15.x): CrewBase resolves `config/agents.yaml` and
`config/tasks.yaml` relative to the folder of the module that defines the crew class
(`base_directory`), and a file that is not there only logs a warning: the crew then runs with
no agents or tasks at all. The crew sets both paths absolute, which CrewBase joins unchanged,
and a missing file is a ConfigError before CrewBase reads anything.
"""

from __future__ import annotations

from pathlib import Path

from claims_crew.errors import ConfigError

CONFIG_FILES = ("agents.yaml", "tasks.yaml")


def use_config_dir(crew: object, folder: Path) -> None:
    """Set the crew's YAML paths to `folder`'s files; call from __init__, which CrewBase runs
    before it loads them."""
    for name in CONFIG_FILES:
        if not (folder / name).is_file():
            raise ConfigError(f"{folder / name}: missing")
    crew.original_agents_config_path = str((folder / "agents.yaml").resolve())  # type: ignore[attr-defined]
    crew.original_tasks_config_path = str((folder / "tasks.yaml").resolve())  # type: ignore[attr-defined]
