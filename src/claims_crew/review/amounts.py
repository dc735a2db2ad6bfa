"""The amount payable and the external reason codes of a decision, as plain data for the views.

`review show`, its `--json` and the review page read the same dictionaries (views.py): the
amount and each step behind it with its clause, or why there is none; and beside every internal
code the team's own (config/reason_codes.yaml), or null where the project keeps no mapping.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from claims_crew.models import Payable
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import PersonClause
from claims_crew.records.resolution import Resolution
from claims_crew.resolver.external_codes import ExternalCodes, load_external_codes
from claims_crew.resolver.reread import person_payable
from claims_crew.vocabulary import PAID_ANSWER

if TYPE_CHECKING:
    from claims_crew.store import Review, Store


def payable_detail(
    resolution: Resolution | None, review: Review | None = None
) -> dict[str, Any] | None:
    """The payable amount as JSON-ready data: a person's covered decision's, else the rules';
    `held` when a gate held a covered outcome back and no person has decided, so the amount is
    what confirming covered would pay."""
    if review is not None and review.payable is not None:
        return {**review.payable.model_dump(mode="json"), "held": False}
    if resolution is None or resolution.payable is None or review is not None:
        return None
    return {
        **resolution.payable.model_dump(mode="json"),
        "held": not resolution.decided,
    }


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


def payable_on_confirming(
    store: Store, ref: str, library: PolicyLibrary | None = None
) -> Payable | None:
    """The amount payable on confirming the proposal waiting on escalation `ref` (as on the
    proposed decision, from the clauses it rests on); None where none waits, which the
    confirmation itself then refuses."""
    proposal = store.proposal(ref)
    if proposal is None:
        return None
    return payable_on_decision(
        store, proposal.claim_id, proposal.decision, library, proposal.clauses
    )


def external_detail(
    resolution: Resolution | None, codes: ExternalCodes | None = None
) -> dict[str, Any]:
    """The team's codes: the decision's (or the escalation's first reason's) and each reason
    code's; empty when config/reason_codes.yaml is absent."""
    codes = codes if codes is not None else load_external_codes()
    if codes is None or resolution is None:
        return {"code": None, "reason_codes": {}}
    return {
        "code": codes.of_resolution(resolution),
        "reason_codes": {c: codes.reason_codes.get(c) for c in resolution.reason_codes},
    }
