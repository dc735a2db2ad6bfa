"""`claims-crew letter CLAIM_ID`: the decision letter for a decided claim, recorded in the trail.

The store and the letter's libraries (Jinja2, fpdf2) are imported inside the command, so
listing the commands never loads them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from claims_crew import settings
from claims_crew.cli._output import (
    EXIT_BAD_INPUT,
    EXIT_NOT_FOUND,
    emit_json,
    fail,
    json_option,
    reports_errors,
    working,
)


@click.command("letter")
@click.argument("claim_id")
@click.option(
    "--format",
    "format_",
    type=click.Choice(["md", "html", "pdf"]),
    default="md",
    show_default=True,
    help="Markdown, an HTML page, or a PDF (a PDF needs --out).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the letter to FILE instead of standard output.",
)
@click.option("--force", is_flag=True, help="Replace the --out file if it already exists.")
@json_option
@reports_errors
def letter_command(
    claim_id: str, format_: str, out: Path | None, force: bool, as_json: bool
) -> None:
    """Write a decided claim's letter; each letter issued is an audit entry with its hash.

    The letter comes from the templates in config/letters/. Escalated and pending claims get
    none. An existing --out file is kept unless --force is given (exit 2, nothing recorded)."""
    from claims_crew.letters.content import NoLetter, UnknownClaim
    from claims_crew.letters.issue import OutExists, issue_letter
    from claims_crew.letters.render import FORMATS, LETTERS_DIR
    from claims_crew.store import Store

    fmt = next(f for f in FORMATS if f == format_)
    if fmt == "pdf" and out is None:
        fail("usage", "a PDF letter needs --out FILE", EXIT_BAD_INPUT, as_json)
    try:
        with working(f"writing {claim_id}'s {fmt} letter from its stored decision", as_json):
            issued = issue_letter(
                Store(), claim_id, fmt, settings.config_dir() / LETTERS_DIR, out, force
            )
    except OutExists as exc:
        fail("out_exists", str(exc), EXIT_BAD_INPUT, as_json)
    except NoLetter as exc:
        unknown = isinstance(exc, UnknownClaim)
        fail(
            "not_found" if unknown else "no_letter",
            str(exc),
            EXIT_NOT_FOUND if unknown else EXIT_BAD_INPUT,
            as_json,
        )
    summary = {
        "claim_id": claim_id,
        "format": fmt,
        "sha256": issued.sha256,
        "audit_seq": issued.entry.audit_seq,
        "out": str(out) if out else None,
        "unshown": list(issued.unshown),
    }
    for line in () if as_json else issued.unshown:  # the letter says it too, on its last lines
        click.echo(f"{claim_id}: note: {line}", err=True)
    if as_json:
        if out is None:
            summary["letter"] = issued.content.decode("utf-8")
        emit_json(summary)
    elif out is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(issued.content)
        sys.stdout.buffer.flush()
    else:
        click.echo(
            f"{out}: letter for {claim_id}, sha256 {issued.sha256}, "
            f"audit entry {issued.entry.audit_seq}"
        )
