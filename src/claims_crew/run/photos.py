"""A claim's photos, for the intake agent to see as images (CLAIMS_CREW_INTAKE_IMAGES on).

The photos are the claim's image attachments as intake recorded them (documents/record.py):
read from the original intake kept by its hash, else from the claim's folder, and given only
while their bytes still hash to what intake stored, so the model is shown the very picture
whose text of record it reads beside it. One that no longer matches is left out, and the
claim's notes already say it changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from claims_crew.claim_files import LoadedClaim
from claims_crew.documents.kept import read_plain_file
from claims_crew.documents.limits import MAX_DOCUMENT_BYTES
from claims_crew.errors import KeptFileError
from claims_crew.settings import current


def intake_images_from_environment() -> bool:
    """CLAIMS_CREW_INTAKE_IMAGES: whether photos go to the intake agent as images too."""
    return bool(current().claims_crew_intake_images)


def claim_photos(loaded: LoadedClaim) -> dict[str, bytes]:
    """The claim's image attachments, name → bytes, in the claim file's order, each as intake
    read it (its SHA-256 checked)."""
    photos: dict[str, bytes] = {}
    for name, record in loaded.documents.items():
        if record.kind != "image":
            continue
        places = [Path(record.kept_at)] if record.kept_at else []
        places.append(loaded.path.parent / name)
        for place in places:
            data = _bytes_of(place)
            if data is not None and hashlib.sha256(data).hexdigest() == record.sha256:
                photos[name] = data
                break
    return photos


def _bytes_of(path: Path) -> bytes | None:
    """A regular file's bytes, up to the attachment cap, opened without following a link; None
    where it cannot be read so."""
    try:
        return read_plain_file(path, MAX_DOCUMENT_BYTES)
    except KeptFileError:
        return None
