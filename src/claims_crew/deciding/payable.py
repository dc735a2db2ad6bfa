"""The amount payable on a person's decision, computed before it is recorded.

A covered decision pays what the policy's schedule gives under the clause it rests on
(resolver/reread.py computes it); the store keeps the amount with the decision, so the letter
and the claims system see the figure the reviewer was shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from claims_crew.models import Payable
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import PersonClause
from claims_crew.resolver.reread import person_payable
from claims_crew.vocabulary import PAID_ANSWER

if TYPE_CHECKING:
    from claims_crew.store import Proposal, Store


def payable_on_decision(
    store: Store,
    claim_id: str,
    decision: str,
    library: PolicyLibrary | None = None,
    clauses: Sequence[PersonClause] = (),
) -> Payable | None:
    """The amount payable on a person's decision: for covered, computed from the clause that
    pays among those the person named (`paying_clause`), else as the rules would; None
    for any other decision (and for a claim the store does not hold, which the decision itself
    then refuses)."""
    if decision != PAID_ANSWER or (claim_file := store.claim_file(claim_id)) is None:
        return None
    record = store.claim_record(claim_id)
    resolution = record.resolution if record is not None else None
    return person_payable(
        library or PolicyLibrary(), claim_file, resolution, paying_clause(clauses)
    )


def paying_clause(clauses: Sequence[PersonClause]) -> str | None:
    """Of the clauses a covered decision names, the one its amount comes from: the first that
    grants cover, else the first that is not an exclusion or a condition, else the first. A
    reviewer who ticks the exclusion the other side cited beside the cover clause is paid
    under the cover clause's limit, not the exclusion's section."""
    for wanted in (("grant",), ("grant", "limit", "definition", "other", "")):
        if found := next((c for c in clauses if c.kind in wanted), None):
            return found.clause_id
    return clauses[0].clause_id if clauses else None


def payable_on_proposal(
    store: Store, waiting: Proposal | None, library: PolicyLibrary | None = None
) -> Payable | None:
    """The amount payable on confirming the proposal `waiting` (as on the proposed decision,
    from the clauses it rests on); None where none waits, which the confirmation itself then
    refuses."""
    if waiting is None:
        return None
    return payable_on_decision(store, waiting.claim_id, waiting.decision, library, waiting.clauses)


def payable_on_confirming(
    store: Store, ref: str, library: PolicyLibrary | None = None
) -> Payable | None:
    """The amount payable on confirming the proposal waiting on escalation `ref`."""
    return payable_on_proposal(store, store.proposal(ref), library)
