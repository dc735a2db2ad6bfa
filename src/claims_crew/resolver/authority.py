"""The amount a decision pays, and whether it is within the authority of a decision that stands
without a person (resolution.yaml's `authority`; over the limit: over_authority).

The deciding clause is the first of the winning side's deciding clauses (deciding.py: verified,
supporting, one policy_lookup returned first, as the gates ask), among the clauses the
adjudicator named when it decided; its place in the clause tree picks the schedule's limits.
"""

from __future__ import annotations

from collections.abc import Collection

from claims_crew.models import Payable
from claims_crew.policy.ids import clause_key
from claims_crew.policy.schedule import ScheduleSource
from claims_crew.records.resolution import Resolution
from claims_crew.resolver.case import Case, ReadClause
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.deciding import deciding_checks, winning_sides
from claims_crew.resolver.payable import compute_payable
from claims_crew.vocabulary import DECIDED_OUTCOMES, PAID_ANSWER


def deciding_clause(
    case: Case, resolution: Resolution, resting_on: Collection[str] | None = None
) -> ReadClause | None:
    """The clause of cover a covered decision rests on, as re-read; None if it names none."""
    keys = None if resting_on is None else {clause_key(c) for c in resting_on}
    for check in deciding_checks(resolution, winning_sides(resolution)):
        if keys is not None and (
            check.clause_id is None or clause_key(check.clause_id) not in keys
        ):
            continue
        if (clause := case.view.clauses.get(check.cited)) is not None:
            return clause
    return None


def decision_payable(
    case: Case, resolution: Resolution, resting_on: Collection[str] | None = None
) -> Payable | None:
    """The amount payable on an outcome that decides covered; None for any other outcome."""
    if resolution.outcome not in DECIDED_OUTCOMES or resolution.answer != PAID_ANSWER:
        return None
    clause = deciding_clause(case, resolution, resting_on)
    within = (clause.id, *clause.within) if clause is not None else ()
    source = case.view.schedule or ScheduleSource(
        case.view.policy_id, None, f"no schedule was read for {case.view.policy_id}"
    )
    return compute_payable(case.claim_file.amount, case.claim_file.currency, source, within)


def over_authority(config: ResolutionConfig, payable: Payable | None) -> str | None:
    """Why the amount is beyond what may be paid without a person; None when it is within
    (or there is no amount, or no limit for its currency)."""
    if payable is None or payable.amount is None:
        return None
    limit = config.authority.automatic_limit.get(payable.currency)
    if limit is None or payable.amount <= limit:
        return None
    return (
        f"the amount payable, {payable.amount} {payable.currency}, is over the automatic "
        f"authority limit of {limit} {payable.currency}"
    )
