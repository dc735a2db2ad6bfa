"""An escalation whose verified fact is quoted from a page of a PDF attachment: C-1049, read as
intake reads it (its plumber's report kept by hash, as a run keeps it), with intake's start
date quoted from page 2 of the report; fraud abstains, so a person decides."""

from __future__ import annotations

import shutil
from pathlib import Path

from claims_crew.claim_files import LoadedClaim, load_claim
from claims_crew.policy.library import PolicyLibrary
from claims_crew.store import Store
from tests.support.attachments import INTAKE_SPLIT, SPLIT_CLAIM, SPLIT_REPORT, SPLIT_STARTED
from tests.support.sample_inbox import ABSTAIN
from tests.support.store import record_for

INTAKE_SPLIT_STARTED = {
    **INTAKE_SPLIT,
    "damage_start_date": "2026-01-16",
    "unknowns": [],
    "sources": {
        **INTAKE_SPLIT["sources"],
        "damage_start_date": {"where": SPLIT_REPORT, "quote": SPLIT_STARTED},
    },
}


def split_escalated(
    store: Store,
    library: PolicyLibrary,
    folder: Path,
    keep_originals: bool = True,
    report: bytes | None = None,
) -> LoadedClaim:
    """C-1049 and its report copied under `folder`, read with the original kept in
    `folder`/attachments (unless `keep_originals` is false, as before originals were kept), and
    recorded in `store` as escalated. `report`: other bytes for the report (a PDF whose page 2
    still says SPLIT_STARTED)."""
    inbox = folder / "inbox"
    inbox.mkdir(parents=True)
    shutil.copy(SPLIT_CLAIM, inbox)
    if report is None:
        shutil.copy(SPLIT_CLAIM.parent / SPLIT_REPORT, inbox)
    else:
        (inbox / SPLIT_REPORT).write_bytes(report)
    originals = folder / "attachments" if keep_originals else None
    loaded = load_claim(inbox / SPLIT_CLAIM.name, originals=originals)
    # Fraud abstains, so the claim goes to a person with its facts checked.
    record = record_for(loaded, library, intake=INTAKE_SPLIT_STARTED, fraud=ABSTAIN)
    assert record.resolution is not None and record.resolution.outcome == "ESCALATED"
    store.record(record, None, loaded)
    return loaded
