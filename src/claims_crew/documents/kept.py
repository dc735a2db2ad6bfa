"""Original attachment files, kept by their hash so the review page can show the page a quote
comes from even after the inbox was cleared or the file replaced."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


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
