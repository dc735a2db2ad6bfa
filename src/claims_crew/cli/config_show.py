"""`claims-crew config show`: the effective settings, where each came from, secrets masked.

Beside `config check` in the `config` group (this module adds it there). At a terminal it is a
table; elsewhere (a CI log, a pipe) one `NAME=value  # source` line a setting, which a shell
or an editor reads as written and a search finds whole; `--json` for scripts.
"""

from __future__ import annotations

from rich.console import Console

from claims_crew.cli._output import emit_json, is_terminal, json_option, plain_line, reports_errors
from claims_crew.cli.safe_text import plain
from claims_crew.cli.tables import Table
from claims_crew.cli.tuning import config
from claims_crew.settings.showing import Shown, shown_settings

__all__ = ["config", "config_show"]


def settings_table(rows: list[Shown]) -> Table:
    table = Table(title="Settings (environment over settings file over default)")
    table.add_column("setting", no_wrap=True)
    table.add_column("value", whole_words=True)
    table.add_column("from")
    for row in rows:
        value = plain(row.value) if row.value else plain("(unset)", "dim")
        source = plain(row.source, "dim" if row.source == "default" else "")
        table.add_row(plain(row.name), value, source)
    return table


def setting_line(row: Shown) -> str:
    """`NAME=value  # source`: the value as the environment would hold it."""
    return f"{row.name}={row.value}  # {row.source}"


@config.command("show")
@json_option
@reports_errors
def config_show(as_json: bool) -> None:
    """Print the effective settings and where each came from (environment, settings file,
    default); keys, tokens and passwords masked."""
    rows = shown_settings()
    if as_json:
        emit_json({"settings": [row.as_json() for row in rows]})
        return
    console = Console()
    if is_terminal(console):
        console.print(settings_table(rows))
        return
    for row in rows:  # a pipe or a CI log: one whole line a setting
        plain_line(console, setting_line(row))
