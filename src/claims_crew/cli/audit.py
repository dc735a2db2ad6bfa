"""`claims-crew audit`: the hash-chained audit trail: verify it, export it, sign checkpoints.

The store (SQLAlchemy) is imported inside each command, so listing the commands never loads it.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from claims_crew.cli._output import EXIT_FAILED, emit_json, json_option, reports_errors


@click.group("audit")
def audit_group() -> None:
    """The hash-chained audit trail: verify it, export it as JSONL, sign checkpoints of it."""


@audit_group.command("verify")
@click.option(
    "--file",
    "export_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Verify an exported JSONL file instead of the store.",
)
@click.option(
    "--checkpoint",
    "checkpoint_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Also prove the chain still extends this checkpoint from `audit checkpoint`.",
)
@json_option
@reports_errors
def audit_verify(export_file: Path | None, checkpoint_file: Path | None, as_json: bool) -> None:
    """Walk the chain, check each entry's signature with the audit key, and check the
    decisions, escalations and reviews it recorded; name the first problem. Exits 1 when
    anything is broken, 2 when signed entries or a checkpoint meet no audit key."""
    from claims_crew.store import Store, audit_key, checkpoint

    signed = checkpoint.read(checkpoint_file) if checkpoint_file is not None else None
    key = audit_key.find_key()
    if export_file is not None:
        with export_file.open(encoding="utf-8") as lines:
            verdict = checkpoint.verify_export(lines.read().splitlines(), signed, key)
    else:
        verdict = Store().verify_audit(signed, key)
    if as_json:
        emit_json(verdict.as_json())
    elif verdict.ok:
        extends = f" It extends the signed checkpoint of entry {signed.seq}." if signed else ""
        if verdict.unsigned:
            extends += (
                f" The first {verdict.unsigned} were written before entries were signed: they "
                "rest on the chain and on signed checkpoints alone."
            )
        click.echo(f"ok: {verdict.entries} entries, chain intact.{extends}")
    else:
        click.echo(f"BROKEN at entry {verdict.first_bad}: {verdict.problem}", err=True)
    if not verdict.ok:
        sys.exit(EXIT_FAILED)


@audit_group.command("checkpoint")
@reports_errors
def audit_checkpoint() -> None:
    """Print a signed checkpoint of the chain head (JSON) to keep away from the database.

    Signed with CLAIMS_CREW_AUDIT_KEY, or the key file audit.key in CLAIMS_CREW_HOME (made on
    first use, mode 0600). Refused, exit 1, when the trail does not verify."""
    from claims_crew.store import Store, audit, audit_key

    key = audit_key.load_key(create=True)
    verdict, signed = Store().audit_checkpoint(key)
    if signed is None:
        click.echo(
            f"BROKEN at entry {verdict.first_bad}: {verdict.problem}; no checkpoint signed.",
            err=True,
        )
        sys.exit(EXIT_FAILED)
    if key.created:
        click.echo(f"Created the audit key {key.source} (mode 0600); keep a copy.", err=True)
    click.echo(audit.canonical(signed.model_dump()))
    click.echo(
        f"Checkpoint of entry {signed.seq}, signed with key {signed.key_id}: keep it away from "
        "the database, and check it with: claims-crew audit verify --checkpoint FILE",
        err=True,
    )


@audit_group.command("export")
@click.option(
    "--since",
    type=click.DateTime(formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%SZ"]),
    help="Only entries at or after this UTC time.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file (default: standard output).",
)
@json_option
@reports_errors
def audit_export(since: datetime | None, output: Path | None, as_json: bool) -> None:
    """Write the trail as JSONL: a header line, then one entry per line with its hash."""
    from claims_crew.store import Store

    lines = Store().export_audit(since.replace(tzinfo=UTC) if since else None)
    if output is None:
        for line in lines:
            click.echo(line)
        return
    tmp = output.with_name(f".{output.name}.tmp")
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    tmp.replace(output)
    if as_json:
        emit_json({"output": str(output), "entries": len(lines) - 1})
    else:
        click.echo(f"{len(lines) - 1} entries written to {output}.")
