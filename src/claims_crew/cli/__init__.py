"""`claims-crew …`: the command group. Each command lives in a module of this package, imported
only when that command runs; `--help` lists the commands from a table here without importing
any of them."""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import click


class Lazy(NamedTuple):
    """Where a command lives, and the line `claims-crew --help` shows for it (the command's own
    short help: tests/test_cli_startup.py holds the two equal)."""

    target: str  # module:attribute
    short_help: str
    # An old name kept for a release: it runs when typed, but no list or reference names it.
    hidden: bool = False


class LazyGroup(click.Group):
    """A group whose commands are imported only when one of them is run.

    `claims-crew config check` then loads the config checker alone, not the store, the web app
    or the report, and `claims-crew --help` loads none of them: the command list comes from the
    `Lazy` table. A command module imports CrewAI inside its commands only.
    """

    def __init__(self, *args: Any, lazy: dict[str, Lazy] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        shown = [name for name, lazy in self.lazy.items() if not lazy.hidden]
        return sorted([*super().list_commands(ctx), *shown])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        module, attribute = self.lazy[cmd_name].target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command) and command.name == cmd_name
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, as click writes it, from the table rather than the modules."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            # A lazy command's line is shortened by a stand-in that has it as its whole help.
            stand_in = name in self.lazy and click.Command(name, help=self.lazy[name].short_help)
            command = stand_in or super().get_command(ctx, name)
            if command is None or command.hidden:
                continue
            rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


LAZY_COMMANDS = {
    "appeal": Lazy(
        "claims_crew.cli.appeal:appeal_command",
        "Reopen a decided claim with new evidence and review it again.",
    ),
    "audit": Lazy(
        "claims_crew.cli.audit:audit_group",
        "The hash-chained audit trail: verify it, export it as JSONL, sign checkpoints of it.",
    ),
    "claim": Lazy(
        "claims_crew.cli.claim:claim_group",
        "One claim, whoever decided it: its state, decision, facts, letter and audit entries.",
    ),
    "clients": Lazy(
        "claims_crew.cli.clients:clients",
        "Service clients of the HTTP API: their tokens and scopes.",
    ),
    "compare": Lazy(
        "claims_crew.cli.compare:compare_command",
        "Compare the shadow NAME (`claims-crew run --shadow NAME`) with production, claim by "
        "claim: outcomes, answers, escalations and open fields before and after.",
    ),
    "config": Lazy(
        "claims_crew.cli.config_show:config",
        "Check the crew's YAML (agents, tasks, resolution) before spending a model call.",
    ),
    "evaluate": Lazy(
        "claims_crew.cli.report:evaluate_command",
        "Measure the decisions in the store against LABELS (CSV or JSONL: claim_id, label).",
    ),
    "ingest": Lazy(
        "claims_crew.cli.work:ingest_command",
        "Read the claim files in INBOX into the store and queue them for `claims-crew work`.",
    ),
    "letter": Lazy(
        "claims_crew.cli.letter:letter_command",
        "Write a decided claim's letter; each letter issued is an audit entry with its hash.",
    ),
    "policy": Lazy(
        "claims_crew.cli.policy:policy",
        "Inspect the policy library: clauses, one clause, word search, the clause tree.",
    ),
    "prompt": Lazy(
        "claims_crew.cli.tuning:prompt",
        "Show the exact messages TASK's agent would be sent for a claim; no model is called.",
    ),
    "report": Lazy(
        "claims_crew.cli.report:report_command",
        "Disagreement, coverage, escalations and calibration over the decisions in the store.",
    ),
    "requeue": Lazy(
        "claims_crew.cli.requeue:requeue_command",
        "Queue a claim parked after failed reviews again, for the next worker or run.",
    ),
    "resolve": Lazy(
        "claims_crew.cli.resolve:resolve_command",
        "Run the resolver's rules on one case file; no model is called without --adjudicate.",
    ),
    "revalidate": Lazy(
        "claims_crew.cli.revalidate:revalidate_command",
        "Run decisions again under the current state: the claims named, else every stale one.",
    ),
    "review": Lazy(
        "claims_crew.cli.review:review",
        "The queue of escalated claims: list them, show one side by side, decide it.",
    ),
    "reviewer": Lazy(
        "claims_crew.cli.reviewers:reviewer",
        "The old name of `claims-crew reviewers`, for one more release.",
        hidden=True,
    ),
    "reviewers": Lazy(
        "claims_crew.cli.reviewers:reviewers",
        "Reviewers: their role, lines of business and authority.",
    ),
    "run": Lazy(
        "claims_crew.cli.run:run_command",
        "Review every claim in the inbox that has not been reviewed yet.",
    ),
    "serve": Lazy(
        "claims_crew.cli.serve:serve",
        "Serve the review queue as a web page (sign in with a reviewer token).",
    ),
    "store": Lazy(
        "claims_crew.cli.store:store_group",
        "The decision store itself: copy it into another database.",
    ),
    "webhooks": Lazy(
        "claims_crew.cli.webhooks:webhooks",
        "Webhooks sent to the endpoints in config/webhooks.yaml.",
    ),
    "work": Lazy(
        "claims_crew.cli.work:work_command",
        "Take pending claims from the store and review them, until stopped (SIGTERM, Ctrl-C).",
    ),
}


# The commands that exit 1 when they could not start, as when a claim failed (CI reads it so);
# every other one refuses a bad setting as it refuses a bad config, with 2.
EXIT_1_ON_A_BAD_SETTING = frozenset({"run", "work", "ingest"})


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS)
@click.version_option(package_name="claims_crew")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Review insurance claims with a crew of agents and a plain-Python resolver."""
    # Every setting is read and checked first: a bad value is one error naming it, before any
    # command has begun its work. Imported here, not above: `--help` needs no settings, and
    # pydantic-settings costs about half a second to import on a busy machine.
    from claims_crew import settings
    from claims_crew.cli.notices import print_notices
    from claims_crew.errors import ConfigError
    from claims_crew.run.collector import end_without_final_collection

    end_without_final_collection()  # first: it runs after the exit handlers of what comes next
    print_notices()  # the store's notices as this command's lines, not as log records

    try:
        settings.current()
    except ConfigError as exc:
        from claims_crew.cli._output import EXIT_FAILED, fail_with

        fail_with(
            exc,
            exit_code=EXIT_FAILED if ctx.invoked_subcommand in EXIT_1_ON_A_BAD_SETTING else None,
        )
    # Any command may build a crew (run, prompt, resolve --adjudicate), and it runs after this,
    # before anything imports CrewAI.
    settings.keep_crewai_at_home()
