"""`claims-crew --help`, `config check` and `review list` start without the heavy imports, and
`serve` without CrewAI.

CrewAI costs seconds to import, SQLAlchemy and Alembic most of a second: the commands people
type to look around load them only when a command needs them, and the review page never reviews
a claim itself. bench/cli_startup.py measures the times; these tests hold what is imported,
which is what the times come from.
"""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from claims_crew.cli import LAZY_COMMANDS, main
from tests.support.paths import ROOT

HEAVY = ("crewai", "litellm", "sqlalchemy", "alembic", "mako", "fastapi", "llama_cpp")


def imported_by(*args: str, prelude: str = "") -> tuple[list[str], str]:
    """The heavy packages a fresh process imported running `claims-crew ARGS` (after running the
    code `prelude`), and its output."""
    code = (
        "import json, sys\n"
        f"{prelude}"
        "from click.testing import CliRunner\n"
        "from claims_crew.cli import main\n"
        f"r = CliRunner().invoke(main, {list(args)!r})\n"
        "assert r.exit_code == 0, r.output\n"
        f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))\n"
        "print(json.dumps({'heavy': heavy, 'output': r.output}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    found = json.loads(out.stdout.splitlines()[-1])
    return found["heavy"], found["output"]


@pytest.mark.slow
def test_help_imports_no_command_and_nothing_heavy() -> None:
    heavy, output = imported_by("--help")
    assert heavy == []
    assert "review" in output and "Check the crew's YAML" in output


@pytest.mark.slow
def test_review_list_reads_the_store_without_crewai_or_alembic() -> None:
    """Alembic runs only when a database needs migrating: the first command makes the store."""
    imported_by("review", "list")
    heavy, output = imported_by("review", "list")
    assert heavy == ["sqlalchemy"]
    assert "0 open escalation(s)" in output


@pytest.mark.slow
@pytest.mark.parametrize(
    "args", [("config", "check"), ("review", "--help"), ("audit", "--help"), ("claim", "--help")]
)
def test_looking_around_imports_nothing_heavy(args: tuple[str, ...]) -> None:
    heavy, _ = imported_by(*args)
    assert heavy == []


# uvicorn.run builds the app from its factory, as uvicorn would, and returns at once.
BUILD_THE_APP_ONLY = (
    "import importlib, uvicorn\n"
    "from claims_crew.review.serving import APP_FACTORY\n"
    "def run(*args, **kwargs):\n"
    "    module, _, factory = APP_FACTORY.partition(':')\n"
    "    getattr(importlib.import_module(module), factory)()\n"
    "uvicorn.run = run\n"
)


@pytest.mark.slow
def test_serve_builds_its_app_and_sender_without_crewai() -> None:
    """Only `serve --work N`'s queue workers review claims, in processes of their own."""
    heavy, output = imported_by("serve", "--port", "8765", prelude=BUILD_THE_APP_ONLY)
    assert heavy == ["fastapi", "sqlalchemy"]
    assert "Review page on http://127.0.0.1:8765/" in output


def test_help_lists_each_command_as_click_would_from_the_command_itself() -> None:
    """The table behind `--help` says what each command's own docstring says."""
    ctx = click.Context(main, info_name="claims-crew")
    for name, lazy in LAZY_COMMANDS.items():
        command = main.get_command(ctx, name)
        assert command is not None
        assert lazy.short_help == command.get_short_help_str(limit=10**6), name
    for width in (80, 120):
        ours, clicks = ctx.make_formatter(), ctx.make_formatter()
        ours.width = clicks.width = width
        main.format_commands(ctx, ours)
        click.Group.format_commands(main, ctx, clicks)
        assert ours.getvalue() == clicks.getvalue()
