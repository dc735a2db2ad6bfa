"""Signed checkpoints of the audit chain's head, and the proof that a chain still extends one.

A checkpoint is `{seq, hash}` of the chain head at some moment, signed with the audit key
(audit_key.py), which the database never holds. Kept somewhere else (a ticket, a mail, another
machine), it lets `audit verify --checkpoint` prove that the chain as it is now still holds
that entry with that hash, intact, with every later entry linked to it. Someone with write
access to the database alone can re-hash a rewritten chain so that it verifies, or cut entries
off the end and move the head back; neither can keep entry `seq` at the signed hash.

What a checkpoint cannot show: entries appended after it. Those rest on the chain and on their
own signatures (entry_signatures.py), which the same key makes, until the next checkpoint.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import Connection, select

from claims_crew.errors import CheckpointError, validation_problems
from claims_crew.store import audit
from claims_crew.store.audit_key import ALGORITHM, AuditKey
from claims_crew.store.tables import audit_log


class Checkpoint(BaseModel):
    """The chain head at one moment, signed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    audit_checkpoint: Literal[1] = Field(1, description="The format's version.")
    seq: int = Field(ge=0, description="The head entry's number; 0 for an empty chain.")
    hash: str = Field(pattern="^[0-9a-f]{64}$", description="The head entry's hash.")
    at: str = Field(description="When the checkpoint was signed (UTC).")
    algorithm: Literal["HMAC-SHA256"] = ALGORITHM
    key_id: str = Field(description="Which key signed it (audit_key.AuditKey.key_id).")
    signature: str = Field(description="Hex HMAC over the canonical JSON of the other fields.")

    def signed_text(self) -> bytes:
        return audit.canonical(self.model_dump(exclude={"signature"})).encode("utf-8")


def sign(seq: int, digest: str, at: str, key: AuditKey) -> Checkpoint:
    unsigned = Checkpoint(seq=seq, hash=digest, at=at, key_id=key.key_id, signature="")
    return unsigned.model_copy(update={"signature": key.sign(unsigned.signed_text())})


def read(path: Path) -> Checkpoint:
    """A checkpoint file as `audit checkpoint` printed it."""
    try:
        return Checkpoint.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        problems = "; ".join(validation_problems(exc, "the file"))
        raise CheckpointError(f"{path} is not an audit checkpoint: {problems}") from exc
    except OSError as exc:
        raise CheckpointError(f"{path} cannot be read: {exc.strerror}") from exc


def signature_problem(checkpoint: Checkpoint, key: AuditKey) -> str | None:
    if checkpoint.key_id != key.key_id:
        return (
            f"the checkpoint was signed with key {checkpoint.key_id}, "
            f"not with this key ({key.key_id}, from {key.source})"
        )
    if not key.verifies(checkpoint.signed_text(), checkpoint.signature):
        return "the checkpoint's signature does not match its contents: it was altered"
    return None


def _extends(
    checkpoint: Checkpoint, verdict: audit.Verdict, found: str | None, last_seq: int, what: str
) -> audit.Verdict:
    """Whether a chain (already verified as `verdict` says, ending at `last_seq`) whose entry
    `checkpoint.seq` has hash `found` extends the checkpoint."""
    seq, entries = checkpoint.seq, verdict.entries
    if seq == 0:
        return verdict
    if last_seq < seq:
        return audit.Verdict(
            False,
            entries,
            last_seq + 1,
            f"the {what} ends at entry {last_seq}, but the signed checkpoint holds entry "
            f"{seq}: entries were cut off the end",
        )
    if found != checkpoint.hash:
        return audit.Verdict(
            False,
            entries,
            seq,
            f"entry {seq} no longer has the hash of the signed checkpoint: "
            f"the chain was rewritten at or before entry {seq}",
        )
    return verdict


def check_chain(
    conn: Connection, checkpoint: Checkpoint, key: AuditKey, verdict: audit.Verdict
) -> audit.Verdict:
    """After the stored chain verified (`verdict`): is the checkpoint ours, and does the chain
    still hold its entry with its hash?"""
    if problem := signature_problem(checkpoint, key):
        return audit.Verdict(False, verdict.entries, None, problem)
    last_seq, _ = audit.head(conn)
    found = conn.execute(
        select(audit_log.c.hash).where(audit_log.c.seq == checkpoint.seq)
    ).scalar_one_or_none()
    return _extends(checkpoint, verdict, found, last_seq, "chain")


def verify_export(
    lines: Sequence[str], checkpoint: Checkpoint | None = None, key: AuditKey | None = None
) -> audit.Verdict:
    """An export checked on its own (its signatures with `key`), and, given a checkpoint,
    checked to extend it: the export must hold the checkpoint's entry with its hash (an export
    that starts later cannot show that, and fails)."""
    verdict = audit.verify_export(lines, key)
    if not verdict.ok or checkpoint is None:
        return verdict
    if key is None:
        raise CheckpointError("no audit key: a checkpoint is checked with the key that signed it")
    if problem := signature_problem(checkpoint, key):
        return audit.Verdict(False, verdict.entries, None, problem)
    items = [json.loads(line) for line in lines if line.strip()]
    header = items[0]["audit_export"]
    first_seq, last_seq = header["first_seq"], header["last_seq"]
    if checkpoint.seq and first_seq is not None and first_seq > checkpoint.seq:
        return audit.Verdict(
            False,
            verdict.entries,
            None,
            f"the export starts at entry {first_seq}, after the checkpoint's entry "
            f"{checkpoint.seq}: export from an earlier time to check it",
        )
    found = next((str(i["hash"]) for i in items[1:] if i["entry"]["seq"] == checkpoint.seq), None)
    return _extends(checkpoint, verdict, found, last_seq or 0, "export")
