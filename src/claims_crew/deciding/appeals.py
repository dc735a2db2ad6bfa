"""Whether a claim may be appealed at all: the checks that need no model, run before any.

`claims-crew appeal` and the page's appeal make these first, on the store alone, so that an
appeal of a claim with nothing to appeal is refused at once, before the models are loaded or a
line says the claim is being reopened. run/appeal.py makes them again under the claim's lease.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from claims_crew.errors import NotFound, StoreError

if TYPE_CHECKING:
    from claims_crew.store import Standing, Store


class AppealRefused(StoreError):
    """An appeal that cannot be taken: the message says why."""


def standing_to_appeal(store: Store, claim_id: str) -> Standing:
    """The claim's decision in force, or AppealRefused saying why there is none to appeal."""
    found = store.standings([claim_id])
    if not found:
        raise AppealRefused(f"claim {claim_id} has no decision: there is nothing to appeal")
    standing = found[0]
    if standing.escalation_open:
        raise AppealRefused(
            f"claim {claim_id} is not decided yet: its escalation waits for a person"
        )
    return standing


def appeal_taken(store: Store, claim_id: str, attachments: Sequence[Path], reason: str) -> Standing:
    """The decision the appeal would replace, once the reason, the new files and the claim's
    standing allow it; AppealRefused (or NotFound for a missing file) saying why not."""
    if not reason.strip():
        raise AppealRefused("an appeal needs a reason")
    if not attachments:
        raise AppealRefused("an appeal needs new evidence: attach at least one file")
    for attachment in attachments:
        if not Path(attachment).exists():
            raise NotFound(f"{attachment}: no such file")
    return standing_to_appeal(store, claim_id)
