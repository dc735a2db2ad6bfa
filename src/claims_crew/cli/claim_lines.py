"""How a run shows each claim: its line as it finishes, its row in the final table, and the
failures counted by reason.

The line and the row say the same things (the decision and its reason codes, each agent's
answer, the time, or why the claim failed), so that a run stopped halfway has still shown what
it decided. File names, file errors and provider messages are outside text: they go in as
plain Text or escaped markup (safe_text.py), never as markup of their own. What CrewAI logged
while a claim failed is in the claim's log file (run/claim_log.py), which its line names.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text

from claims_crew.cli.safe_text import clean, markup, plain
from claims_crew.cli.tables import Table
from claims_crew.models import Claim, ParseFailure
from claims_crew.run.claim_log import log_path

if TYPE_CHECKING:
    from claims_crew.resolver import Resolution
    from claims_crew.run.ingest import Ingested
    from claims_crew.run.routine import BatchItem

# Why a claim of the run failed when its record says nothing: its file was refused.
BAD_FILE = "bad claim file"
# A worker process died before it finished the claims it held.
WORKER_DIED = "worker died"


def answer_markup(side: Claim | ParseFailure | None) -> str:
    if side is None:
        return "-"
    if isinstance(side, ParseFailure):
        return "[red]parse_error[/red]"
    checked = "✓" if side.source_checked else "✗"
    return f"{markup(side.answer)} {side.confidence:.2f} {checked}"


def outcome_markup(resolution: Resolution | None) -> str:
    if resolution is None:
        return "-"
    colour = {"ESCALATED": "yellow", "ADJUDICATION_REQUIRED": "yellow"}.get(resolution.outcome)
    text = resolution.outcome + (f" {markup(resolution.answer)}" if resolution.answer else "")
    if resolution.reason_codes:
        text += f" ({', '.join(resolution.reason_codes)})"
    return f"[{colour}]{text}[/{colour}]" if colour else text


def _first_line(message: str) -> str:
    """A provider's message on one line: its first, the rest left to the table."""
    lines = message.strip().splitlines()
    return lines[0] + (" …" if len(lines) > 1 else "") if lines else ""


def claim_line(item: BatchItem) -> Text:
    """One line for a claim as it finishes: 'C-2.json: reviewed in 1.2 s: ESCALATED
    (needs_more_evidence); policy covered 0.82 ✓, fraud not_covered 0.70 ✗', or why it
    failed."""
    line = plain(f"{item.path.name}: ")
    record = item.record
    if item.busy:  # why, where the routine said (its lease passed to another holder)
        line.append(clean(f"skipped, {item.error or 'being reviewed by another run'}"))
    elif record is None:
        why = f"{BAD_FILE}" + (f" ({item.code})" if item.code else "")
        line.append(why, style="red")
        line.append(clean(f": {_first_line(item.error or '')}"))
    elif record.error is not None:
        line.append(f"failed ({record.error.code})", style="red")
        line.append(clean(f" after {record.seconds:.1f} s: {_first_line(record.error.message)}"))
        if (log := log_path(record.claim_id)).is_file():
            line.append(clean(f"; what CrewAI logged is in {log}"))
    else:
        line.append(f"reviewed in {record.seconds:.1f} s: ")
        line.append_text(Text.from_markup(outcome_markup(record.resolution)))
        policy, fraud = answer_markup(record.policy), answer_markup(record.fraud)
        line.append_text(Text.from_markup(f"; policy {policy}, fraud {fraud}"))
    return line


def failure_reasons(items: list[BatchItem], workers_lost: int = 0) -> Counter[str]:
    """Why the run's failed claims failed, counted: a record's error code, a refused file's
    problem, or a worker that died with claims nobody finished (`workers_lost`)."""
    reasons: Counter[str] = Counter()
    for item in items:
        if item.ok:
            continue
        if item.record is None:
            reasons[f"{BAD_FILE} ({item.code})" if item.code else BAD_FILE] += 1
        else:
            reasons[item.record.error.code if item.record.error else item.record.status] += 1
    if workers_lost:
        reasons[WORKER_DIED] += workers_lost
    return reasons


def failures_said(reasons: Counter[str]) -> str:
    """'3 claim(s) failed: 2 timeout, 1 bad claim file (malformed)'; '' when none failed."""
    count = sum(reasons.values())
    if not count:
        return ""
    why = ", ".join(f"{n} {reason}" for reason, n in reasons.most_common())
    return f"{count} claim(s) failed: {why}"


def with_notes(items: list[BatchItem], ingested: list[Ingested]) -> list[BatchItem]:
    """Each item with its file's attachment notes from ingest (needs_ocr, changed)."""
    notes = {i.path: tuple(i.notes) for i in ingested if i.notes}
    return [replace(i, notes=notes[i.path]) if i.path in notes else i for i in items]


def notes_text(notes: tuple[tuple[str, str, str], ...]) -> Text:
    """'attachment report.pdf: needs_ocr (pages 1 have no text layer; …)', one a line."""
    said = Text()
    for name, code, message in notes:
        said.append(f"\nattachment {clean(name)}: ", style="yellow")
        said.append(code, style="yellow")
        said.append(f" ({clean(message)})")
    return said


def claims_table(items: list[BatchItem]) -> Table:
    """One row per claim file."""
    table = Table(title="Claims reviewed (✓ = every cited clause came from policy_lookup)")
    for column in ("claim", "policy agent", "fraud agent", "decision", "time"):
        table.add_column(column)
    for item in items:
        record = item.record
        if item.busy:
            why = plain(f"skipped: {item.error or 'being reviewed by another run'}")
            table.add_row(plain(item.path.name), "-", "-", why, "-")
            continue
        if record is None:
            why = Text(BAD_FILE, style="red")
            why.append(f" ({item.code})" if item.code else "", style="red")
            why.append(": " + clean(item.error or ""))
            table.add_row(plain(item.path.name), "-", "-", why, "-")
            continue
        status: Text | str = outcome_markup(record.resolution)
        if record.error is not None:
            status = Text(record.error.code, style="red")
            status.append(": " + clean(record.error.message))
        if item.notes:
            status = Text.from_markup(status) if isinstance(status, str) else status
            status.append_text(notes_text(item.notes))
        table.add_row(
            plain(record.claim_id),
            answer_markup(record.policy),
            answer_markup(record.fraud),
            status,
            f"{record.seconds:.1f} s",
        )
    return table
