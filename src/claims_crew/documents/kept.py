"""Original attachment files, kept by their hash under CLAIMS_CREW_HOME.

Intake keeps every attachment's bytes here, named by their SHA-256, so that what is read later
is what intake read: the review page shows the page a quote comes from even after the inbox
was cleared or the file replaced, and an appeal or a revalidation takes a claim's originals
from here, never from the inbox again (a file there may since have become a link to anything).

Whatever is read back is opened without following a link and without blocking, refused unless
it is a regular file within its cap, and checked against the hash it was kept under: a kept file
that no longer matches is a KeptFileError, never used.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

from claims_crew import settings
from claims_crew.documents.limits import MAX_DOCUMENT_BYTES
from claims_crew.documents.record import AttachmentRecord
from claims_crew.errors import KeptFileError

# O_NOFOLLOW: a link in the file's place is refused by the kernel (ELOOP), not followed;
# O_NONBLOCK: a FIFO in its place opens at once, and is then refused as not a regular file.
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def originals_dir() -> Path:
    """Where intake keeps attachments' original bytes, by their SHA-256."""
    return settings.home() / "attachments"


def keep_original(folder: Path, data: bytes) -> str:
    """The path of `data` kept under `folder` as its SHA-256; written once, atomically."""
    target = folder / hashlib.sha256(data).hexdigest()
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".incoming-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    return str(target)


# A file that must be new: created, never opened if something is already there (a link put in
# its place would otherwise be written through), and never through a link.
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def write_new_file(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write `data` to `path`, a file that must not exist yet (FileExistsError if anything is
    there, a link included); a file left half-written by a failed write is removed."""
    fd = os.open(path, _NEW_FLAGS, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def read_plain_file(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes, opened without following a
    link; KeptFileError (missing, not_a_file, too_large) otherwise. At most `limit` + 1 bytes
    are read, so a file that grows meanwhile is still refused."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError as exc:
        raise KeptFileError("missing", f"{path}: no such file") from exc
    except OSError as exc:  # ELOOP: a link; anything else that cannot be opened
        raise KeptFileError(
            "not_a_file", f"{path}: a link or not a readable file; it is not followed"
        ) from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise KeptFileError("not_a_file", f"{path}: not a regular file; it is not read")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise KeptFileError("too_large", f"{path}: over the cap of {limit:,} bytes")
    return data


def kept_bytes(record: AttachmentRecord, folder: Path | None = None) -> bytes | None:
    """The original of `record` as intake kept it, its SHA-256 checked; None where intake kept
    none (a claim read before originals were kept: its text of record stands alone).

    The file is found by the hash in the store's record under `folder` (the home's originals
    by default), not by a path the record names. KeptFileError if it is missing, a link, not
    a regular file, or no longer the bytes intake read.
    """
    if not record.kept_at or not record.sha256:
        return None
    place = (folder or originals_dir()) / record.sha256.lower()
    try:
        data = read_plain_file(place)
    except KeptFileError as exc:
        raise KeptFileError(
            exc.code, f"attachment {record.name!r}: its kept original {exc}"
        ) from exc
    if hashlib.sha256(data).hexdigest() != record.sha256.lower():
        raise KeptFileError(
            "changed",
            f"attachment {record.name!r}: its kept original {place} is not the file intake "
            "read (its SHA-256 differs); it is not used",
        )
    return data
