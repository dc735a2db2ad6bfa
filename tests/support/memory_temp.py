"""Where a test run's temporary files go: a folder in memory (tmpfs) where the machine has one
with room, else the system's temporary folder.

A test run creates and deletes files by the hundred thousand: each test's home and store, the
bytecode the run keeps, every PostgreSQL database a test copies (about 300 files each). On the
ext4 disk of the two-core machines the suite is timed on, creating a file in a folder that has
seen that churn cost 0.6-0.9 ms of kernel CPU (the allocator scans past the inodes just freed),
against 0.05-0.06 ms on tmpfs; a `CREATE DATABASE` from the migrated template took 0.34-0.45 s
of the server's CPU in the system's temporary folder and 0.01-0.02 s on tmpfs (docs/development.md
has the runs). Nothing a test writes is meant to outlive the run, so memory is the right place.

A TMPDIR already set is the developer's choice and is left alone; a tmpfs with less than
MIN_FREE bytes free (a container's /dev/shm is often 64 MB) is passed over.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import MutableMapping, Sequence
from pathlib import Path

CANDIDATES = (Path("/dev/shm"),)
# A run's clusters, kept bytecode and the homes of the tests under way: a few hundred MB, since a
# passed test's folder is deleted as it ends (tmp_path_retention_policy in pyproject.toml).
MIN_FREE = 2 * 1024**3
MOUNTS = Path("/proc/self/mounts")


def memory_folder(
    candidates: Sequence[Path] = CANDIDATES, mounts: Path = MOUNTS, min_free: int = MIN_FREE
) -> Path | None:
    """The first candidate that is a tmpfs mount point this process may write to, with at least
    `min_free` bytes free; None where there is none (or no mount table to tell)."""
    try:
        table = mounts.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = [line.split() for line in table.splitlines()]
    tmpfs = {Path(f[1]) for f in fields if len(f) > 2 and f[2] == "tmpfs"}
    for candidate in candidates:
        if candidate not in tmpfs or not os.access(candidate, os.W_OK | os.X_OK):
            continue
        try:
            stat = os.statvfs(candidate)
        except OSError:
            continue
        if stat.f_bavail * stat.f_frsize >= min_free:
            return candidate
    return None


def use_memory_temp(environ: MutableMapping[str, str], root: Path | None) -> Path | None:
    """Point TMPDIR (in `environ`, which the run's processes inherit) and this process's tempfile
    at a folder of this user's under `root`, unless TMPDIR is set already or `root` is None;
    the folder, or None when nothing changed.

    The folder may be traversed by others (0711) though not listed: PostgreSQL runs as its own
    user when the tests run as root, and its cluster is a folder made inside this one."""
    if root is None or environ.get("TMPDIR"):
        return None
    folder = root / f"claims-crew-tests-{os.getuid()}"
    folder.mkdir(mode=0o711, exist_ok=True)
    if folder.is_symlink() or folder.lstat().st_uid != os.getuid():
        return None  # someone else's, in a folder all users share: not ours to write in
    folder.chmod(0o711)  # mkdir's mode is masked by the umask
    environ["TMPDIR"] = str(folder)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    return folder
