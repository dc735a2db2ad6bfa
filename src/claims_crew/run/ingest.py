"""Claim files into the store's work queue: what `claims-crew ingest INBOX` does, and the first
half of every run.

Each file is read once and validated (claim_files.load_claims: files sharing a claim id are
refused together), then kept whole in the store (the bytes that were checked, its fields and its
attachments' text) and its claim queued for the workers (store/work_queue.py). A file whose claim
is already queued from other bytes is refused as a duplicate id too. Everything later
reads the claim from the store, never from the file again. A bad file is refused with a typed
error and the others go on. A claim already decided is not queued again; a file changed after
its claim's decision is flagged and not queued.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from claims_crew.claim_files import load_claims
from claims_crew.errors import ClaimFileError
from claims_crew.settings import home
from claims_crew.store import Store
from claims_crew.store.work_queue import Enqueued, Taken
from claims_crew.vocabulary import ClaimFileProblem


@dataclass(frozen=True)
class StoredClaim:
    """A claim kept whole in the store by ingest: enough to find it and to name it."""

    claim_id: str
    sha256: str
    path: Path

    @classmethod
    def of(cls, taken: Taken) -> StoredClaim:
        return cls(taken.claim_id, taken.sha256, Path(taken.path))


@dataclass(frozen=True)
class Ingested:
    """One claim file's fate: queued (or why not), or refused with the file's problem."""

    path: Path
    claim_id: str | None
    state: Enqueued | None
    error: str | None = None
    code: ClaimFileProblem | None = None
    sha256: str = ""  # of the bytes kept, when the file was read
    # (attachment, code, message): read only in part (needs_ocr), or changed since intake.
    notes: list[tuple[str, str, str]] = field(default_factory=list)

    @classmethod
    def refusal(cls, path: Path, error: ClaimFileError) -> Ingested:
        return cls(path, None, None, str(error), error.code)

    def as_json(self) -> dict[str, object]:
        """The file's fate for `--json`: its state, or its code and why; each attachment note."""
        return {
            "file": self.path.name,
            "claim_id": self.claim_id,
            "state": self.state,
            "code": self.code,
            "error": self.error,
            "attachments": [
                {"name": name, "code": code, "message": message}
                for name, code, message in self.notes
            ],
        }

    @property
    def refused(self) -> bool:
        return self.state is None

    @property
    def stored(self) -> StoredClaim:
        """The claim as the store keeps it; only for a file that was not refused."""
        assert self.claim_id is not None, "a refused file has no claim in the store"
        return StoredClaim(self.claim_id, self.sha256, self.path)


def ingest(paths: Sequence[Path], store: Store, seconds: float | None = None) -> list[Ingested]:
    """Keep and queue each claim file; results in the order given.

    `seconds` bounds the reading of each claim's attachments (the claim's deadline: OCR time
    counts against it). A claim file already kept is not read again: its attachments' text of
    record is the one kept, and a changed attachment is reported in the Ingested's notes.
    """
    found = load_claims(paths, seconds, store.kept_records, home() / "attachments")
    readable = [loaded for path in paths if not isinstance(loaded := found[path], ClaimFileError)]
    enqueued = iter(store.enqueue_all(readable))
    results: list[Ingested] = []
    for path in paths:
        loaded = found[path]
        if isinstance(loaded, ClaimFileError):
            results.append(Ingested.refusal(path, loaded))
            continue
        state = next(enqueued)
        if isinstance(state, ClaimFileError):  # another version of the claim is queued
            results.append(Ingested.refusal(path, state))
            continue
        results.append(
            Ingested(path, loaded.claim.claim_id, state, sha256=loaded.sha256, notes=loaded.notes())
        )
    return results
