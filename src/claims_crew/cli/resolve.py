"""`claims-crew resolve CASE.json`: the resolver's rules replayed on one case file.

No model is called unless --adjudicate is given and the rules find an interpretation dispute;
the group has set CrewAI's environment by then, and CrewAI is imported only in that case.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from claims_crew.cli._output import emit_json, json_option, reports_errors


@click.command("resolve")
@click.argument("case_path", metavar="CASE.json", type=click.Path(path_type=Path))
@click.option(
    "--adjudicate",
    is_flag=True,
    help="Ask the adjudicator model about an interpretation dispute (otherwise no model runs).",
)
@json_option
@reports_errors
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
        from claims_crew.run.levels.adjudicator import adjudicate_case

        resolution, check = adjudicate_case(case, config, resolution, library)
    if as_json:
        emit_json(resolution_json(resolution, check))
        return
    show_resolution(Console(), case.claim_file.claim_id, resolution, check)
