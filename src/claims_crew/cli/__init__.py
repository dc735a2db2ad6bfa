"""`claims-crew …`: the command group. Each command lives in a module of this package, imported
only when that command runs (or when --help lists it)."""

from __future__ import annotations

import importlib
from typing import Any

import click

from claims_crew import paths


class LazyGroup(click.Group):
    """A group whose commands are imported only when one of them is run.

    `claims-crew config check` then loads the config checker alone, not the store, the web app
    or the report, and starts in little more than the time click and pydantic take. A command
    module imports CrewAI inside its commands only, so listing the commands stays fast too.
    """

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        module, attribute = self.lazy[cmd_name].split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command) and command.name == cmd_name
        return command


# name → module:attribute.
LAZY_COMMANDS = {
    "policy": "claims_crew.cli.policy:policy",
    "resolve": "claims_crew.cli.resolve:resolve_command",
    "run": "claims_crew.cli.run:run_command",
    "ingest": "claims_crew.cli.work:ingest_command",
    "work": "claims_crew.cli.work:work_command",
    "config": "claims_crew.cli.tuning:config",
    "prompt": "claims_crew.cli.tuning:prompt",
    "review": "claims_crew.cli.review:review",
    "audit": "claims_crew.cli.review:audit_group",
    "reviewer": "claims_crew.cli.review:reviewer",
    "serve": "claims_crew.cli.serve:serve",
    "revalidate": "claims_crew.cli.revalidate:revalidate_command",
    "report": "claims_crew.cli.report:report_command",
    "evaluate": "claims_crew.cli.report:evaluate_command",
    "compare": "claims_crew.cli.compare:compare_command",
    "store": "claims_crew.cli.store:store_group",
}


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS)
@click.version_option(package_name="claims_crew")
def main() -> None:
    """Review insurance claims with a crew of agents and a plain-Python resolver."""
    # Any command may build a crew (run, prompt, resolve --adjudicate), and it runs after this,
    # before anything imports CrewAI.
    paths.keep_crewai_at_home()
