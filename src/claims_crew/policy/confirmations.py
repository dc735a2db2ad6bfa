"""Endorsement readings a person has confirmed, and whether a reading still is.

The reader (changes.py) reads phrases, and will meet wording it has not seen; a claim must never
be decided without a person on a reading nobody checked. So each endorsement's reading has a
digest (`reading_digest`): its PDF's SHA-256, its changes as read and as its corrections leave
them, and the reading code's version (changes.READING_VERSION). A lead confirms it
(`claims-crew policy confirm FORM-NUMBER`, or the confirm page): the store's audit trail gets an
entry, and policies/confirmations.yaml, kept under version control beside index.yaml, records
who confirmed which digest and when, so a clone keeps its confirmations. A reading whose digest
is not the one confirmed (a new PDF, a correction, a reader that reads it differently) is
unconfirmed again.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from claims_crew.policy.changes import READING_VERSION, Change
from claims_crew.settings.yaml_files import model_from_yaml

FILE_NAME = "confirmations.yaml"
_HEADER = (
    "# Endorsement readings a lead has confirmed, by form number: the reading's digest (its PDF,\n"
    "# its changes as read and as corrected, the reading code's version), who confirmed it and\n"
    "# when. Written by `claims-crew policy confirm FORM-NUMBER`; a reading whose digest differs\n"
    "# from the one here is unconfirmed, and a claim it would decide goes to a person.\n"
)


class Confirmation(BaseModel):
    """One endorsement's confirmed reading."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    digest: str = Field(pattern=r"^[0-9a-f]{64}$", description="The reading's digest confirmed.")
    by: str = Field(min_length=1, description="The reviewer (a lead) who confirmed it.")
    at: str = Field(min_length=1, description="When, UTC, ISO 8601 with Z.")


class ConfirmationsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    confirmations: dict[str, Confirmation] = Field(
        default_factory=dict, description="Endorsement form number → its confirmed reading."
    )


def reading_digest(
    pdf_sha256: str, read: Sequence[Change], corrected: Sequence[Change] | None
) -> str:
    """The digest of one endorsement's reading: what a person confirms."""
    parts = {
        "version": READING_VERSION,
        "pdf": pdf_sha256,
        "read": [dataclasses.asdict(c) for c in read],
        "corrected": None if corrected is None else [dataclasses.asdict(c) for c in corrected],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def confirmations_path(policies_root: Path) -> Path:
    return policies_root / FILE_NAME


def load_confirmations(policies_root: Path) -> dict[str, Confirmation]:
    """policies/confirmations.yaml by form number; none where the file is absent."""
    path = confirmations_path(policies_root)
    if not path.exists():
        return {}
    return dict(model_from_yaml(path, ConfirmationsFile, "confirmations").confirmations)


# Where a reading stands: confirmed as it reads now; never confirmed; or confirmed once, but
# it reads differently now (a new PDF, a correction, the reader).
ReadingState = Literal["confirmed", "unconfirmed", "changed"]


def reading_state(digest: str, confirmation: Confirmation | None) -> ReadingState:
    """Where a reading whose digest is `digest` stands against its confirmation, if any."""
    if confirmation is None:
        return "unconfirmed"
    return "confirmed" if confirmation.digest == digest else "changed"


def unconfirmed(
    readings: Mapping[str, str], confirmed: Mapping[str, Confirmation]
) -> dict[str, str]:
    """Endorsement → why its reading decides nothing without a person, for each of `readings`
    (form number → digest) that is not confirmed as it reads now."""
    out: dict[str, str] = {}
    for name, digest in readings.items():
        confirmation = confirmed.get(name)
        if confirmation is None:
            out[name] = f"the reading of endorsement {name} has not been confirmed by a person"
        elif confirmation.digest != digest:
            out[name] = (
                f"the reading of endorsement {name} changed since {confirmation.by} confirmed it "
                f"at {confirmation.at} (its PDF, its corrections or the reader)"
            )
    return out


def with_confirmation(
    confirmed: Mapping[str, Confirmation], name: str, confirmation: Confirmation
) -> str:
    """The text of confirmations.yaml with `name`'s confirmation set, the others kept, sorted.
    Each value is written as a JSON string, which YAML reads as the same string."""
    merged = {**confirmed, name: confirmation}
    lines = [_HEADER, "confirmations:\n"]
    for key in sorted(merged):
        c = merged[key]
        lines.append(
            f"  {json.dumps(key)}: {{digest: {json.dumps(c.digest)}, by: {json.dumps(c.by)}, "
            f"at: {json.dumps(c.at)}}}\n"
        )
    return "".join(lines)


@contextmanager
def _held(lock: Path) -> Iterator[None]:
    """An exclusive lock on the file `lock` (made if absent) while the block runs. flock is
    advisory, between the processes that ask for it, and the kernel drops it when the process
    dies, so a crash mid-write never leaves the file locked."""
    # Not through a link: the lock file is only ever this project's own, in policies/.
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def write_confirmation(policies_root: Path, name: str, confirmation: Confirmation) -> None:
    """Record `name`'s confirmation in policies/confirmations.yaml (replaced atomically).

    Read, set and replace happen under a lock on a file beside it: two leads confirming at
    once would otherwise each read the file before the other's write, and the second replace
    would drop the first one's line. The lock is on a file of its own, not on confirmations.yaml,
    because the replace puts a new file in its place."""
    path = confirmations_path(policies_root)
    with _held(path.with_name(f".{path.name}.lock")):
        text = with_confirmation(load_confirmations(policies_root), name, confirmation)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
