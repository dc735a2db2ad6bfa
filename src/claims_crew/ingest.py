"""Claim files into the store's work queue: what `claims-crew ingest INBOX` does.

Each file is read and validated as a run reads it (claim_files.load_claim, and files sharing a
claim id refused together), then kept whole in the store (its bytes, fields and attachments'
text) and its claim queued for the workers (store/work_queue.py). A bad file is refused with
the same typed error a run gives, and the others go on. A claim already decided is not queued
again; a file changed after its claim's decision is flagged and not queued, as in a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from claims_crew.claim_files import claim_ids, load_claim
from claims_crew.errors import ClaimFileError
from claims_crew.store import Store
from claims_crew.store.work_queue import Enqueued
from claims_crew.vocabulary import ClaimFileProblem


@dataclass(frozen=True)
class Ingested:
    """One claim file's fate: queued (or why not), or refused with the file's problem."""

    path: Path
    claim_id: str | None
    state: Enqueued | None
    error: str | None = None
    code: ClaimFileProblem | None = None

    @property
    def refused(self) -> bool:
        return self.state is None


def ingest(paths: Sequence[Path], store: Store) -> list[Ingested]:
    """Keep and queue each claim file; results in the order given."""
    found = claim_ids(paths)
    results: list[Ingested] = []
    for path in paths:
        claim_id = found[path]
        try:
            if isinstance(claim_id, ClaimFileError):
                raise claim_id
            # Read again: the file is kept as it is now, checked as it is now.
            loaded = load_claim(path)
        except ClaimFileError as exc:
            results.append(Ingested(path, None, None, str(exc), exc.code))
            continue
        results.append(Ingested(path, loaded.claim.claim_id, store.enqueue(loaded)))
    return results
