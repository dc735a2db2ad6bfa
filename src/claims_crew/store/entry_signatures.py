"""Each audit entry signed with the audit key, so that an entry written without it shows.

The hash chain (audit.py) shows that the entries agree with one another, and a signed checkpoint
(checkpoint.py) pins the chain up to its entry. Neither shows a well-formed entry appended after
the last checkpoint by someone who can write the database: it links to the head and hashes
cleanly. So every entry is signed as it is written: an HMAC-SHA256 of its hash with the audit
key (audit_key.py, the key that signs checkpoints), kept beside the entry
(`audit_log.signature`). The entry's body names the key (`key_id`), inside the hash, so that a
signature cannot be stripped without changing the entry's hash, which the chain and the next
checkpoint catch.

Checking, entry by entry along the chain or an export:
- an entry that names a key must carry that key's signature of its hash;
- an entry that names none was written before entries were signed. Such entries are accepted
  only before the first signed one, and are counted: they rest on the chain and on the
  checkpoints, as every entry did before. An unsigned entry after a signed one is what someone
  without the key writes, and fails.

One key signs a whole trail: a process whose key is not the one the last entry names is refused
before it writes (same_key), so a worker on a machine without the right key cannot leave entries
that nobody can check.
"""

from __future__ import annotations

from claims_crew.errors import CheckpointError
from claims_crew.store.audit_key import KEY_ENV, AuditKey, key_path

# Kept apart from what a checkpoint signs (canonical JSON), so neither signature passes for
# the other.
_LABEL = b"claims-crew audit entry "


def sign(key: AuditKey, digest: str) -> str:
    """The signature of the entry whose hash is `digest`."""
    return key.sign(_LABEL + digest.encode("utf-8"))


def same_key(head_key_id: str | None, key: AuditKey) -> None:
    """Refuse to write with a key other than the one the chain's last entry names."""
    if head_key_id is not None and head_key_id != key.key_id:
        raise CheckpointError(
            f"the audit trail is signed with key {head_key_id}, and this process has key "
            f"{key.key_id} (from {key.source}): every process that writes to the store needs "
            f"the same audit key ({KEY_ENV}, or a copy of the key file)"
        )


class Signatures:
    """The signature check of one walk over the chain, entry after entry."""

    def __init__(self, key: AuditKey | None) -> None:
        self.key = key
        self.unsigned = 0  # entries written before entries were signed
        self.signed = 0

    def problem(self, seq: int, key_id: str | None, digest: str, signature: str | None) -> str:
        """Why entry `seq` (hash `digest`, naming `key_id`) fails its signature; "" if it
        does not. Without a key, a signed entry cannot be checked: that is an error."""
        if key_id is None:
            if self.signed:
                return (
                    f"entry {seq} is not signed, but the entries before it are: it was "
                    "written without the audit key"
                )
            self.unsigned += 1
            return ""
        if self.key is None:
            raise CheckpointError(
                f"no audit key to check the signature of entry {seq}: set {KEY_ENV}, or keep "
                f"the key file {key_path()} that signed it"
            )
        if key_id != self.key.key_id:
            return (
                f"entry {seq} names key {key_id}, not this key ({self.key.key_id}, from "
                f"{self.key.source})"
            )
        if signature is None or not self.key.verifies(_LABEL + digest.encode("utf-8"), signature):
            return (
                f"entry {seq} does not carry the audit key's signature: it was written "
                "without the key"
            )
        self.signed += 1
        return ""
