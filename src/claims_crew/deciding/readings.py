"""A lead confirms an endorsement's reading (policy/confirmations.py): the command line's
`policy confirm` and the confirm page both call `confirm_reading`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claims_crew.desk import reading_confirm_refusal
from claims_crew.errors import StoreError
from claims_crew.policy.confirmations import Confirmation, write_confirmation
from claims_crew.policy.in_force import changes_of
from claims_crew.policy.library import PolicyLibrary

if TYPE_CHECKING:
    from claims_crew.store import Store


def confirm_reading(
    store: Store, library: PolicyLibrary, endorsement: str, lead: str, seen: str | None = None
) -> Confirmation:
    """Record that `lead` confirmed `endorsement`'s reading as it reads now: first the audit
    entry (refused, OutsideAuthority, to anyone not a lead), then policies/confirmations.yaml.

    `seen`, where given (the page's form), is the digest the lead was shown: a reading that
    changed since is refused (StoreError), as the lead never saw it."""
    digest = changes_of(library, endorsement).digest  # unknown_endorsement: a PolicyError
    if seen is not None and seen != digest:
        raise StoreError(
            f"the reading of {endorsement} changed since the page was shown; look at it again"
        )
    _, at = store.confirm_reading(endorsement, digest, lead, permit=reading_confirm_refusal)
    confirmation = Confirmation(digest=digest, by=lead, at=at)
    write_confirmation(library.root, endorsement, confirmation)
    library.confirmations[endorsement] = confirmation
    return confirmation
