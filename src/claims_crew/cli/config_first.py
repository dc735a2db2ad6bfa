"""The config folder of a command, and its check before anything else a run does.

`run`, `work` and `crewai run` check the config before the store, the models or CrewAI are
loaded: a broken config is refused with every problem listed after only the checker's own
imports (about a second of CPU), and no store is created for a run that cannot start.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

config_dir_option = click.option(
    "--config-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of agents.yaml, tasks.yaml and resolution.yaml "
    "(default: CLAIMS_CREW_CONFIG, or config/).",
)


def use_config_dir(config_dir: Path | None) -> None:
    """`--config-dir` means what CLAIMS_CREW_CONFIG means, for this process and those it starts
    (worker processes): every reader of the config (the crew, the resolver, the desk, letters)
    then reads that folder, not just the check."""
    if config_dir is not None:
        os.environ["CLAIMS_CREW_CONFIG"] = str(config_dir.absolute())


def refuse_a_broken_config() -> None:
    """Raise ConfigError listing every error of the config folder; warnings pass."""
    from claims_crew.config_check import check_or_raise

    check_or_raise()
