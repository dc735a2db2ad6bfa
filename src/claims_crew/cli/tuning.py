"""`claims-crew config check` and `claims-crew prompt`: the commands for tuning the crew's YAML.

Both start fast: `config check` never imports CrewAI, and `prompt` imports it only once the
config has passed the check, since rendering a prompt needs CrewAI's own prompt code.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from claims_crew import settings
from claims_crew.cli._output import (
    EXIT_BAD_INPUT,
    emit_json,
    fail,
    is_terminal,
    json_option,
    plain_line,
    reports_errors,
)
from claims_crew.cli.agent_models import (
    configured_agents,
    local_threads_line,
    local_threads_now,
    model_line,
    models_table,
)
from claims_crew.cli.config_first import config_dir_option
from claims_crew.cli.safe_text import clean, markup, plain
from claims_crew.cli.tables import Table
from claims_crew.config_check import Problem, check_config, errors
from claims_crew.vocabulary import TASKS

if TYPE_CHECKING:
    from claims_crew.crew.prompt_preview import RenderedPrompt


def _problem_table(problems: list[Problem], title: str) -> Table:
    table = Table(title=title, show_lines=False)
    for column in ("", "where", "key", "problem", "hint"):
        table.add_column(column, overflow="fold", no_wrap=column in ("where", "key"))
    for p in problems:
        mark = Text("error", style="red") if p.severity == "error" else Text("warn", "yellow")
        where = p.file if p.line is None else f"{p.file}:{p.line}"
        table.add_row(mark, plain(where), plain(p.key), plain(p.message), plain(p.hint, "dim"))
    return table


def _problem_line(p: Problem) -> str:
    """`config/tasks.yaml:5: error refused_key: key: message (hint: …)`, as a linter writes it,
    for an editor or a CI annotation to place and grep to find: the path as the folder was given
    (from the working folder where it is under it), the table's columns in its order, and one
    line whatever the text."""
    path, here = p.path(), Path.cwd()
    shown = path.relative_to(here) if path.is_relative_to(here) else path
    where = shown if p.line is None else f"{shown}:{p.line}"
    key = f"{p.key}: " if p.key else ""
    hint = f" (hint: {p.hint})" if p.hint else ""
    return " ".join(f"{where}: {p.severity} {p.code}: {key}{p.message}{hint}".splitlines())


@click.group("config")
def config() -> None:
    """Check the crew's YAML (agents, tasks, resolution) before spending a model call."""


@config.command("check")
@config_dir_option
@json_option
@reports_errors
def config_check(config_dir: Path | None, as_json: bool) -> None:
    """Validate config/*.yaml, and the kind corrections in policies/index.yaml against each
    policy's clauses: every problem with its file, key, line and a hint.

    Exits 2 on any error; warnings alone exit 0.
    """
    folder = config_dir if config_dir is not None else settings.config_dir()
    problems = check_config(folder)
    bad = errors(problems)
    models = configured_agents(folder)
    threads = local_threads_now(models)
    if as_json:
        emit_json(
            {
                "config_dir": str(folder),
                "ok": not bad,
                "problems": [p.as_json() for p in problems],
                "models": [m.as_json() for m in models],
                "local_threads": threads.as_json() if threads else None,
            }
        )
    else:
        console = Console()
        if problems:
            title = f"{folder}: {len(bad)} error(s), {len(problems) - len(bad)} warning(s)"
            if is_terminal(console):
                console.print(_problem_table(problems, markup(title)))
            else:  # a pipe or a CI log: one whole line a problem, then the count
                for problem in problems:
                    plain_line(console, _problem_line(problem))
                plain_line(console, title)
        else:
            console.print(
                f"[green]ok[/green] {markup(folder)}: agents.yaml, tasks.yaml, resolution.yaml"
            )
            index = settings.policies_dir() / "index.yaml"
            if index.exists():  # its kind corrections were checked against each policy's tree
                console.print(f"[green]ok[/green] {markup(index)}")
        if is_terminal(console):
            console.print(models_table(models))
        else:
            for row in models:
                plain_line(console, clean(model_line(row)))
        if threads is not None:
            plain_line(console, local_threads_line(threads))
    if bad:
        sys.exit(EXIT_BAD_INPUT)


@contextmanager
def _scratch_crewai_storage() -> Iterator[None]:
    """CrewAI records every kickoff's task outputs for `crewai replay`; a preview must not
    replace the last real run's, so it writes them to a folder that is thrown away."""
    before = os.environ.get("CREWAI_STORAGE_DIR")
    with tempfile.TemporaryDirectory(prefix="claims-crew-prompt-") as scratch:
        os.environ["CREWAI_STORAGE_DIR"] = scratch
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("CREWAI_STORAGE_DIR", None)
            else:
                os.environ["CREWAI_STORAGE_DIR"] = before


def _print_prompt(rendered: RenderedPrompt) -> None:
    console = Console()
    head = Table(show_header=False, box=None)
    head.add_column(style="bold")
    head.add_column()
    head.add_row("task", rendered.task)
    head.add_row("agent", plain(rendered.agent))
    head.add_row("model", plain(rendered.model))
    head.add_row(
        "tool calling",
        "native (tools sent as schemas)" if rendered.native_tool_calling else "ReAct text",
    )
    context = {
        "stored": "intake facts from the claim's stored result",
        "placeholder": "PLACEHOLDER: the claim has not been run; run it to see the real facts",
        "none": "none",
    }[rendered.context]
    head.add_row("context", context)
    console.print(head)
    for message in rendered.messages:
        console.print(Rule(f"{message.get('role', '?')} message"))
        console.print(plain(message.get("content") or ""), soft_wrap=True)
    console.print(Rule("tools offered"))
    if rendered.tools:
        tools = Table()
        for column in ("name", "arguments", "description"):
            tools.add_column(column, overflow="fold")
        for tool in rendered.tools:
            args = ", ".join(tool["args"].get("properties", {}))
            tools.add_row(plain(tool["name"]), plain(args), plain(tool["description"]))
        console.print(tools)
    else:
        console.print("none")
    console.print(Rule("output schema"))
    if rendered.output_schema is None:
        console.print("none: the answer is free text")
    else:
        console.print(Text(json.dumps(rendered.output_schema, indent=2)), soft_wrap=True)


@click.command("prompt")
@click.argument("task", type=click.Choice(TASKS))
@click.option(
    "--claim",
    "claim_file",
    required=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The claim file (JSON or YAML) whose inputs fill the prompt.",
)
@config_dir_option
@json_option
@reports_errors
def prompt(task: str, claim_file: Path, config_dir: Path | None, as_json: bool) -> None:
    """Show the exact messages TASK's agent would be sent for a claim; no model is called.

    The system prompt, the task prompt with its inputs, the tools offered and the output schema.
    For policy_task and fraud_task, the intake facts come from the claim's stored result, or are
    marked as a placeholder when the claim has not been run.
    """
    folder = config_dir if config_dir is not None else settings.config_dir()
    bad = errors(check_config(folder))
    if bad:
        fail(
            "config",
            f"{folder}: the config has {len(bad)} error(s); run `claims-crew config check`\n"
            + "\n".join(f"  {p.location()}: {p.message}" for p in bad),
            EXIT_BAD_INPUT,
            as_json,
            show_code=False,
        )
    with _scratch_crewai_storage():
        from claims_crew.crew.prompt_preview import render_prompt

        rendered = render_prompt(task, claim_file, folder, stored_intake=_stored_intake(claim_file))
    if as_json:
        emit_json(rendered.as_json())
    else:
        _print_prompt(rendered)


def _stored_intake(claim_file: Path) -> str | None:
    """The intake agent's answer from the claim's stored run, as later tasks saw it."""
    from claims_crew.claim_files import load_claim
    from claims_crew.models import IntakeFacts
    from claims_crew.store import Store

    record = Store().claim_record(load_claim(claim_file).claim.claim_id)
    if record is None or record.status != "reviewed":
        return None
    if raw := record.raw.get("intake_task"):
        return raw
    if isinstance(record.intake, IntakeFacts):
        return record.intake.model_dump_json()
    return None
