"""Which of a claim's attachments are photos, and their bytes, for the intake agent to see.

Only with CLAIMS_CREW_INTAKE_IMAGES on (crew/images.py). A photo is read from the claim's folder
through the same guard as every attachment (inside the folder, a regular file, under the cap).
"""

from __future__ import annotations

import os

from claims_crew.claim_files import MAX_ATTACHMENT_BYTES, LoadedClaim, _read_inside
from claims_crew.errors import ConfigError

PHOTO_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")
_ON = ("1", "true", "yes", "on")
_OFF = ("", "0", "false", "no", "off")


def intake_images_from_environment() -> bool:
    """CLAIMS_CREW_INTAKE_IMAGES: whether photos go to the intake agent as images too."""
    # Here, not at the top: the crew module loads CrewAI, which a run loads only once its
    # config has passed the check.
    from claims_crew.crew.images import SETTING

    raw = os.environ.get(SETTING, "").strip().lower()
    if raw not in _ON + _OFF:
        raise ConfigError(f"{SETTING}={raw!r}: expected 1 or 0 (on or off)")
    return raw in _ON


def claim_photos(loaded: LoadedClaim) -> dict[str, bytes]:
    """The claim's photo attachments, name → bytes, in the claim file's order."""
    claim_path = loaded.path
    return {
        name: _read_inside(
            claim_path, claim_path.parent / name, MAX_ATTACHMENT_BYTES, f"attachment {name!r}"
        )
        for name in loaded.claim.attachments
        if name.lower().endswith(PHOTO_SUFFIXES)
    }
