"""What a crew run leaves behind for one claim, kept as one JSON file per claim.

Each file is written under a temporary name and renamed into place, so a run killed halfway
leaves either the whole record or none. A claim whose record says "reviewed" is not sent to a
model again; a failed one is retried on the next run. (The SQLite decision store replaces this
folder when it lands; the record's shape carries over.)
"""

from __future__ import annotations

import os
import threading
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from claims_crew.models import Claim, IntakeFacts, LedgerEntry, ParseFailure
from claims_crew.resolver import AdjudicationCheck, Resolution


class RunError(BaseModel):
    code: str
    message: str


class ClaimRecord(BaseModel):
    """One claim through the crew: what each agent said, parsed, and what the tool returned."""

    claim_id: str
    claim_file: str
    claim_sha256: str
    policy_id: str
    status: Literal["reviewed", "failed"]
    error: RunError | None = None
    intake: IntakeFacts | ParseFailure | None = None
    policy: Claim | ParseFailure | None = None
    fraud: Claim | ParseFailure | None = None
    raw: dict[str, str] = Field(default_factory=dict, description="Task name → model's text.")
    ledger: list[LedgerEntry] = Field(default_factory=list)
    models: dict[str, str] = Field(default_factory=dict)
    resolution: Resolution | None = Field(None, description="What the resolver decided.")
    adjudication: AdjudicationCheck | None = Field(
        None, description="The adjudicator's answer and its checks, when it was asked."
    )
    model_calls: dict[str, int] = Field(
        default_factory=dict, description="Task name → model calls made for this claim."
    )
    tokens: dict[str, int] = Field(
        default_factory=dict, description="Task name → prompt plus completion tokens."
    )
    policy_sha256: str | None = None
    started_at: datetime
    finished_at: datetime

    @property
    def seconds(self) -> float:
        return (self.finished_at - self.started_at).total_seconds()


def record_path(folder: Path, claim_id: str) -> Path:
    return folder / f"{claim_id}.json"


def save(folder: Path, record: ClaimRecord) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    final = record_path(folder, record.claim_id)
    # Unique per process and thread: claims of one batch may build the same index at once.
    tmp = final.with_name(f".{final.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(record.model_dump_json(indent=2), encoding="utf-8")
    os.replace(tmp, final)
    return final


def load(folder: Path, claim_id: str) -> ClaimRecord | None:
    path = record_path(folder, claim_id)
    try:
        return ClaimRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        return None  # an unreadable record is redone, never trusted


def is_reviewed(folder: Path, claim_id: str) -> bool:
    record = load(folder, claim_id)
    return record is not None and record.status == "reviewed"
