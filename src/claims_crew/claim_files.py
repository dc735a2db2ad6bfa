"""Reading claim files from the inbox: JSON or YAML, validated, with their text attachments."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError

from claims_crew.errors import ClaimFileError, validation_problems
from claims_crew.models import ClaimFile

CLAIM_SUFFIXES = (".json", ".yaml", ".yml")
MAX_ATTACHMENT_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class LoadedClaim:
    """A validated claim file, the bytes it was read from, and its attachments' text."""

    path: Path
    claim: ClaimFile
    raw: bytes
    attachments: dict[str, str]
    # The SHA-256 of `raw`: the claim's identity in the store and the audit trail, computed once.
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha256", hashlib.sha256(self.raw).hexdigest())

    def as_text(self) -> str:
        """The claim as the intake agent reads it: its fields, then each attachment."""
        body = self.claim.model_dump(mode="json", exclude={"attachments"})
        parts = [json.dumps(body, indent=2, ensure_ascii=False)]
        for name, text in self.attachments.items():
            parts.append(f"--- attachment {name} ---\n{text}")
        return "\n\n".join(parts)


def inbox_files(inbox: Path) -> list[Path]:
    """Claim files in an inbox folder, in name order."""
    return sorted(p for p in inbox.iterdir() if p.suffix.lower() in CLAIM_SUFFIXES)


def load_claim(path: Path) -> LoadedClaim:
    """Read and validate one claim file; a problem names the file and every bad field."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ClaimFileError(f"{path}: cannot be read: {exc.strerror}") from exc
    try:
        data = json.loads(raw) if path.suffix.lower() == ".json" else yaml.safe_load(raw)
    except (ValueError, yaml.YAMLError) as exc:
        raise ClaimFileError(f"{path}: not valid {path.suffix.lstrip('.').upper()}: {exc}") from exc
    if not isinstance(data, dict):
        raise ClaimFileError(f"{path}: expected a mapping of claim fields")
    try:
        claim = ClaimFile.model_validate(data)
    except ValidationError as exc:
        missing = [str(e["loc"][0]) for e in exc.errors() if e["type"] == "missing"]
        problems = "; ".join(validation_problems(exc, "file"))
        raise ClaimFileError(f"{path}: {problems}", missing=missing) from exc
    attachments: dict[str, str] = {}
    for name in claim.attachments:
        target = (path.parent / name).resolve()
        if path.parent.resolve() not in target.parents:
            raise ClaimFileError(f"{path}: attachment {name!r} is outside the claim's folder")
        try:
            attachments[name] = target.read_text(encoding="utf-8")[:MAX_ATTACHMENT_CHARS]
        except (OSError, UnicodeDecodeError) as exc:
            raise ClaimFileError(f"{path}: attachment {name!r} cannot be read as text") from exc
    return LoadedClaim(path, claim, raw, attachments)
