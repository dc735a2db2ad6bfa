"""The key that signs audit entries and checkpoints, kept outside the database.

The hash chain shows that the entries agree with one another, but anyone who can write the
database can rewrite an entry and re-hash every entry after it, or append new entries. Every
entry is signed with a key the database never holds as it is written (entry_signatures.py),
and a checkpoint of the chain head signed with the same key pins the chain up to that entry
(checkpoint.py).

The key is an HMAC-SHA256 key (the standard library's `hmac`): CLAIMS_CREW_AUDIT_KEY when set
(at least 32 bytes of text, e.g. the output of `python -c "import secrets;
print(secrets.token_hex(32))"`), else `audit.key` in CLAIMS_CREW_HOME, 32 random bytes written
as hex with mode 0600 by the first write of an entry (or `audit checkpoint`). A key file that
others may read is refused rather than trusted, and checking entries or a checkpoint never
creates a key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from claims_crew import settings
from claims_crew.errors import CheckpointError

KEY_ENV = "CLAIMS_CREW_AUDIT_KEY"
KEY_FILE_NAME = "audit.key"
MIN_KEY_BYTES = 32
ALGORITHM: Final = "HMAC-SHA256"


def key_path() -> Path:
    return settings.home() / KEY_FILE_NAME


@dataclass(frozen=True)
class AuditKey:
    """A signing key and where it came from; `created` when this call wrote the key file."""

    secret: bytes = field(repr=False)
    source: str
    created: bool = False

    @property
    def key_id(self) -> str:
        """Names the key in a checkpoint without revealing it: an HMAC of a fixed label."""
        return self.sign(b"claims-crew audit key id")[:16]

    def sign(self, message: bytes) -> str:
        return hmac.new(self.secret, message, hashlib.sha256).hexdigest()

    def verifies(self, message: bytes, signature: str) -> bool:
        return hmac.compare_digest(self.sign(message), signature)


def find_key() -> AuditKey | None:
    """The audit key if there is one (the variable or the key file); None if there is neither.
    A key that is there but unusable is an error, never taken for no key."""
    if settings.current().claims_crew_audit_key or key_path().exists():
        return load_key()
    return None


def load_key(create: bool = False) -> AuditKey:
    """The audit key from CLAIMS_CREW_AUDIT_KEY or the key file; `create` writes a new key file
    when there is neither."""
    text = settings.current().claims_crew_audit_key
    if text:
        secret = text.encode("utf-8")
        if len(secret) < MIN_KEY_BYTES:
            raise CheckpointError(
                f"{KEY_ENV} is {len(secret)} bytes; an audit key needs at least {MIN_KEY_BYTES}"
            )
        return AuditKey(secret, KEY_ENV)
    path = key_path()
    created = False
    if not path.exists():
        if not create:
            raise CheckpointError(
                f"no audit key: set {KEY_ENV}, or keep the key file {path} that signed the "
                "checkpoint"
            )
        created = _create_key_file(path)
    return AuditKey(_read_key_file(path), str(path), created)


def _create_key_file(path: Path) -> bool:
    """Write a new random key with mode 0600; False when another process wrote one first.

    The key is written whole under a temporary name and hard-linked into place, so nobody
    reads half a key, and a key written meanwhile by another process is never replaced.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(MIN_KEY_BYTES) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        tmp.unlink(missing_ok=True)
    return True


def _read_key_file(path: Path) -> bytes:
    info = path.stat()
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CheckpointError(
            f"the audit key file {path} may be read by others "
            f"(mode {stat.S_IMODE(info.st_mode):04o}); make it private: chmod 600 {path}"
        )
    try:
        secret = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(f"the audit key file {path} does not hold a hex key") from exc
    if len(secret) < MIN_KEY_BYTES:
        raise CheckpointError(
            f"the audit key file {path} holds {len(secret)} bytes; a key needs {MIN_KEY_BYTES}"
        )
    return secret
