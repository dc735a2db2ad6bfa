"""The documentation site's command reference, written from the click commands themselves.

An MkDocs hook (`hooks:` in mkdocs.yml): every build walks `claims-crew`'s click group and adds
`commands.md` to the site, generated, with each command's usage, help and options. Nothing is
written into docs/, so the page cannot drift from the commands: a new option, or a changed help
text, is on the next build. `uv run python scripts/command_reference.py` prints the page.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import click

PAGE = "commands.md"
ROOT_NAME = "claims-crew"

INTRO = """\
# Commands

Every `claims-crew` command with its usage, help and options, generated from the commands
themselves when the site is built (`scripts/command_reference.py`); `claims-crew COMMAND --help`
prints the same. `uv run crewai run`, the main job, is CrewAI's own command: it takes no
options and reads the settings listed in [Settings](settings.md).
"""


def walk(
    command: click.Command, ctx: click.Context
) -> Iterator[tuple[click.Command, click.Context]]:
    """The command and every command under it, depth first, in the order --help lists them."""
    yield command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from walk(sub, click.Context(sub, info_name=name, parent=ctx))


def help_text(command: click.Command) -> str:
    """The help as --help shows it: the docstring, up to click's `\\f` cut, without `\\b`."""
    text = inspect.cleandoc(command.help or "").split("\f")[0]
    return "\n".join(line for line in text.splitlines() if line.strip() != "\b").strip()


def summary(command: click.Command) -> str:
    """The help's first paragraph, whole: a cut could end inside a `code` span."""
    return " ".join(help_text(command).split("\n\n")[0].split())


def takes(param: click.Parameter) -> str:
    """What the parameter takes: a flag nothing, a choice its values, a range its bounds."""
    if isinstance(param, click.Option) and param.is_flag:
        return ""
    kind = param.type
    if isinstance(kind, click.Choice):
        return " | ".join(f"`{choice}`" for choice in kind.choices)
    if isinstance(kind, click.IntRange | click.FloatRange):
        number = kind.name.split()[0]
        low = None if kind.min is None else f"{kind.min:g}"
        high = None if kind.max is None else f"{kind.max:g}"
        if low is not None and high is not None:
            return f"{number}, {low}–{high}"
        return f"{number} ≥ {low}" if low is not None else f"{number} ≤ {high}"
    return kind.name


def default(param: click.Parameter, ctx: click.Context) -> str:
    """The default when it is a plain value; one worked out at run time (from the environment,
    or by MODEL) is described in the option's help instead."""
    value: Any = param.get_default(ctx, call=False)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    return f"`{value}`"


def cell(text: str) -> str:
    """One table cell: a line, with pipes escaped so that they do not end it."""
    return " ".join(text.split()).replace("|", "\\|")


def options_table(command: click.Command, ctx: click.Context) -> list[str]:
    rows = []
    for param in command.params:
        if isinstance(param, click.Argument):
            # A choice's metavar lists every value, and the next column does that already.
            metavar = (param.name or "").upper() if isinstance(param.type, click.Choice) else None
            name = f"`{metavar or param.make_metavar(ctx)}` (argument)"
            about = ""
        else:
            name = ", ".join(f"`{opt}`" for opt in [*param.opts, *param.secondary_opts])
            about = getattr(param, "help", None) or ""
            if param.multiple and "repeatable" not in about:
                about = f"{about} Repeatable.".strip()
            if param.required and "required" not in about.lower():
                about = f"Required. {about}".strip()
        rows.append(f"| {name} | {cell(takes(param))} | {default(param, ctx)} | {cell(about)} |")
    if not rows:
        return []
    return ["| option | takes | default | help |", "|---|---|---|---|", *rows, ""]


def section(command: click.Command, ctx: click.Context) -> list[str]:
    path = ctx.command_path
    lines = [f"## {path}", "", help_text(command), ""]
    usage = " ".join([path, *command.collect_usage_pieces(ctx)])
    lines += ["```text", usage, "```", ""]
    if isinstance(command, click.Group):
        subs = [c for c, sub_ctx in walk(command, ctx) if sub_ctx.parent is ctx]
        lines += [f"- [{path} {c.name}](#{anchor(f'{path} {c.name}')}): {summary(c)}" for c in subs]
        lines.append("")
    return lines + options_table(command, ctx)


def anchor(heading: str) -> str:
    """The id MkDocs gives a heading made of words, spaces and hyphens."""
    return "-".join(heading.lower().split())


def reference(group: click.Group) -> str:
    """The whole page, in markdown."""
    lines = [INTRO]
    for command, ctx in walk(group, click.Context(group, info_name=ROOT_NAME)):
        lines += section(command, ctx)
    return "\n".join(lines).rstrip() + "\n"


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: add the generated page to the site's files (it is never written to docs/)."""
    from mkdocs.structure.files import File

    from claims_crew.cli import main

    files.append(File.generated(config, PAGE, content=reference(main)))
    return files


if __name__ == "__main__":
    from claims_crew.cli import main

    print(reference(main), end="")
