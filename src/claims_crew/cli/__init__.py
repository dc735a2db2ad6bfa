"""`claims-crew …`: the command line. Library errors become a message and an exit code here."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from claims_crew.errors import ClaimsCrewError, PolicyError

if TYPE_CHECKING:
    from claims_crew.policy.document import PolicyDocument

F = TypeVar("F", bound=Callable[..., Any])

EXIT_POLICY_ERROR = 2
EXIT_NOT_FOUND = 3


def _emit_json(payload: object) -> None:
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2))


def _reports_errors(func: F) -> F:
    """Turn a ClaimsCrewError into a reason on stderr (and JSON when asked) and a non-zero exit."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PolicyError as exc:
            if kwargs.get("as_json"):
                _emit_json(exc.as_json())
            click.echo(f"error [{exc.code}]: {exc.message}", err=True)
            sys.exit(EXIT_POLICY_ERROR)
        except ClaimsCrewError as exc:
            if kwargs.get("as_json"):
                _emit_json({"error": {"code": "config", "message": str(exc)}})
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_POLICY_ERROR)

    return wrapper  # type: ignore[return-value]


json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")


class LazyGroup(click.Group):
    """A group whose commands from other modules are imported only when one of them is run.

    `claims-crew config check` then loads the config checker alone, not the store, the web app
    or the report, and starts in little more than the time click and pydantic take.
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


# Commands that live in their own modules: name → module:attribute.
LAZY_COMMANDS = {
    "config": "claims_crew.cli.tuning:config",
    "prompt": "claims_crew.cli.tuning:prompt",
    "review": "claims_crew.cli.review:review",
    "audit": "claims_crew.cli.review:audit_group",
    "reviewer": "claims_crew.cli.review:reviewer",
    "serve": "claims_crew.cli.review:serve",
    "report": "claims_crew.cli.report:report_command",
    "evaluate": "claims_crew.cli.report:evaluate_command",
}


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS)
@click.version_option(package_name="claims_crew")
def main() -> None:
    """Review insurance claims with a crew of agents and a plain-Python resolver."""


@main.group()
def policy() -> None:
    """Inspect the policy library: clauses, one clause, word search."""


def _open(file_or_id: str) -> tuple[PolicyDocument, str | None]:
    from claims_crew.policy.library import PolicyLibrary

    library = PolicyLibrary()
    doc = library.open(file_or_id)
    return doc, (file_or_id if file_or_id in library.entries else None)


@policy.command("clauses")
@click.argument("file_or_id")
@json_option
@_reports_errors
def policy_clauses(file_or_id: str, as_json: bool) -> None:
    """List every clause of a policy (a PDF path or a policy id from policies/index.yaml)."""
    doc, policy_id = _open(file_or_id)
    if as_json:
        from claims_crew.policy.views import clauses_listing

        _emit_json(clauses_listing(doc, policy_id))
        return
    table = Table(
        title=f"{policy_id or doc.path.name}: {len(doc.clauses)} clauses, {doc.page_count} pages"
    )
    for column in ("id", "label", "kind", "pages", "title"):
        table.add_column(column, overflow="fold")
    for c in doc.clauses:
        table.add_row(c.id, c.label, c.kind, ",".join(map(str, c.pages)), c.title)
    Console().print(table)


@policy.command("show")
@click.argument("file_or_id")
@click.argument("clause")
@json_option
@_reports_errors
def policy_show(file_or_id: str, clause: str, as_json: bool) -> None:
    """Print one clause, by canonical id or printed label, with its text."""
    doc, _ = _open(file_or_id)
    from claims_crew.policy.document import LookupMiss
    from claims_crew.policy.views import clause_detail

    found = doc.lookup(clause)
    if isinstance(found, LookupMiss):
        if as_json:
            _emit_json(
                {
                    "error": {
                        "code": "clause_not_found",
                        "message": found.message(),
                        "near": list(found.near),
                    }
                }
            )
        click.echo(f"error [clause_not_found]: {found.message()}", err=True)
        sys.exit(EXIT_NOT_FOUND)
    detail = clause_detail(doc, found)
    if as_json:
        _emit_json(detail)
        return
    console = Console()
    console.print(f"[bold]{detail['id']}[/bold]  {detail['title']}")
    console.print(
        f"kind: {detail['kind']}   pages: {', '.join(map(str, detail['pages']))}"
        f"   parent: {detail['parent'] or '-'}",
        style="dim",
    )
    console.print(detail["text"], markup=False, highlight=False)


@policy.command("search")
@click.argument("file_or_id")
@click.argument("words")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100))
@json_option
@_reports_errors
def policy_search(file_or_id: str, words: str, limit: int, as_json: bool) -> None:
    """Rank a policy's clauses by how well they match WORDS (SQLite FTS5, bm25)."""
    doc, _ = _open(file_or_id)
    from claims_crew.policy.views import search_results

    payload = search_results(doc.search(words, limit))
    if as_json:
        _emit_json(payload)
        return
    table = Table(title=f"{len(payload['hits'])} hits for {words!r}")
    for column in ("id", "kind", "pages", "score", "snippet"):
        table.add_column(column, overflow="fold")
    for hit in payload["hits"]:
        table.add_row(
            hit["id"],
            hit["kind"],
            ",".join(map(str, hit["pages"])),
            f"{hit['score']:.2f}",
            escape(hit["snippet"]),
        )
    Console().print(table)


@main.command("resolve")
@click.argument("case_path", metavar="CASE.json", type=click.Path(path_type=Path))
@click.option(
    "--adjudicate",
    is_flag=True,
    help="Ask the adjudicator model about an interpretation dispute (otherwise no model runs).",
)
@json_option
@_reports_errors
def resolve_command(case_path: Path, adjudicate: bool, as_json: bool) -> None:
    """Run the resolver's rules on one case file; no model is called without --adjudicate."""
    from claims_crew.cli.resolution_view import resolution_json, show_resolution
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.resolver import resolve
    from claims_crew.resolver.case_files import load_case
    from claims_crew.resolver.config import load_config

    config = load_config()
    library = PolicyLibrary()
    case = load_case(case_path, library, config)
    resolution = resolve(case, config)
    check = None
    if adjudicate and resolution.outcome == "ADJUDICATION_REQUIRED":
        from claims_crew.crew.adjudicator import adjudicate_case

        resolution, check = adjudicate_case(case, config, resolution, library)
    if as_json:
        _emit_json(resolution_json(resolution, check))
        return
    show_resolution(Console(), case.claim_file.claim_id, resolution, check)


@main.command("run")
@click.option(
    "--inbox",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Folder of claim files (default: claims/inbox).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=None,
    help="Claims reviewed at once (default: 4 with a remote MODEL, else 1).",
)
def run_command(inbox: Path | None, concurrency: int | None) -> None:
    """Review every claim in the inbox that has not been reviewed yet."""
    from claims_crew import paths
    from claims_crew.cli.run import default_concurrency, review_inbox

    try:
        failed = review_inbox(
            inbox or paths.inbox_dir(), concurrency or default_concurrency(), Console()
        )
    except ClaimsCrewError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    if failed:
        click.echo(f"{failed} claim(s) failed.", err=True)
        sys.exit(1)
