"""The clauses a person's decision rests on, for the review page and `review decide` alike.

Before a person's decision is recorded, the clauses they named are re-read in the wording in
force for the claim (resolver/person_clauses.py) and handed to the store with the decision; a
covered or not covered decision that names none is refused with the reason and the clauses on
offer, unless the desk's rules (config/desk.yaml `decide_without_clause`) allow it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from claims_crew.desk.rules import DeskRules
from claims_crew.errors import ClaimsCrewError, ClauseRefused, NotFound
from claims_crew.models import ClaimFile
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import PersonClause
from claims_crew.records.resolution import Resolution
from claims_crew.resolver.person_clauses import clause_choices, read_person_clauses

if TYPE_CHECKING:
    from claims_crew.store import Proposal, Store


def _claim(store: Store, claim_id: str) -> tuple[ClaimFile, Resolution | None]:
    claim_file = store.claim_file(claim_id)
    if claim_file is None:
        raise NotFound(f"claim {claim_id}: its claim file is not kept")
    record = store.claim_record(claim_id)
    return claim_file, record.resolution if record is not None else None


def offered_clauses(
    store: Store, claim_id: str, library: PolicyLibrary | None = None
) -> list[PersonClause]:
    """The clauses a person may rest a decision on the claim on: those the re-read verified
    first, then every other clause of the wording in force."""
    claim_file, resolution = _claim(store, claim_id)
    return clause_choices(library or PolicyLibrary(), claim_file, resolution)


def decision_clauses(
    store: Store,
    claim_id: str,
    decision: str,
    clause_ids: Sequence[str],
    rules: DeskRules,
    library: PolicyLibrary | None = None,
) -> tuple[PersonClause, ...]:
    """The clauses `clause_ids` re-read in the wording in force, for a person's `decision` on
    the claim; ClauseRefused where it names none and the desk wants one (saying which the
    re-read verified), UnknownClause naming a clause the wording lacks."""
    library = library or PolicyLibrary()
    if why := rules.clause_refusal(decision, len(clause_ids)):
        try:
            verified = [c for c in offered_clauses(store, claim_id, library) if c.verified]
        except ClaimsCrewError:  # an unreadable policy must not hide why this is refused
            verified = []
        raise ClauseRefused(f"{why}. {offer_line(verified)}")
    if not clause_ids:
        return ()
    claim_file, resolution = _claim(store, claim_id)
    return read_person_clauses(library, claim_file, resolution, clause_ids)


def confirmable(waiting: Proposal | None, rules: DeskRules) -> None:
    """ClauseRefused where the proposal `waiting` on an escalation names no clause and the
    desk wants one: one proposed before decisions named clauses, or while desk.yaml allowed
    none. It goes back to be proposed again on a clause; confirming it would send a letter
    that cites nothing. No proposal waiting: the confirmation itself says so."""
    if waiting is not None and (
        why := rules.clause_refusal(waiting.decision, len(waiting.clauses))
    ):
        raise ClauseRefused(f"{why}; return the proposal so it can be proposed again on a clause")


def offer_line(verified: Sequence[PersonClause]) -> str:
    """The clauses offered first, in a sentence: those the re-read verified."""
    named = "; ".join(f"{c.clause_id} {c.title}".strip() for c in verified)
    first = f"The re-read verified: {named}. " if named else "The re-read verified no clause. "
    return first + "Any clause of the wording in force may be named."
