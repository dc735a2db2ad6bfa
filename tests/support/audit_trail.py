"""An audit trail to attack: a few decisions and a review, and a checkpoint kept elsewhere."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from claims_crew.cli import main
from claims_crew.desk import DeskRules
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store, checkpoint
from tests.support.store import accepted_answers, record_for, water_loaded


def five_entries(inbox: Path, library: PolicyLibrary) -> Store:
    """The store every command opens, with entries 1 C-1042 escalated, 2 C-2000 accepted,
    3 C-3000 escalated, 4 C-4000 accepted, 5 ana's review of C-3000. C-1042 is left open."""
    store = Store()
    store.add_reviewer("ana")
    for i, claim_id in enumerate(("C-1042", "C-2000", "C-3000", "C-4000")):
        loaded = water_loaded(inbox, claim_id)
        answers = accepted_answers() if i % 2 else {}
        store.record(record_for(loaded, library, **answers), None, loaded)
    store.decide("C-3000", "not_covered", "Seepage over weeks.", "ana", rules=DeskRules())
    return store


def signed_checkpoint(folder: Path) -> tuple[checkpoint.Checkpoint, Path]:
    """`audit checkpoint` as a user runs it, kept in a file in `folder`, away from the data."""
    result = CliRunner().invoke(main, ["audit", "checkpoint"])
    assert result.exit_code == 0, result.output
    path = folder / "elsewhere" / "checkpoint.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(result.stdout, encoding="utf-8")
    return checkpoint.read(path), path
