"""The amount payable on a covered decision, computed from the policy's schedule in decimals.

The amount claimed (the claim file's, never a figure a model gave), capped by the limit of the
cover section the deciding clause falls in, then by each sub-limit that applies, less the
deductible, in the policy's currency. Each step is kept with the clause it comes from, so a
person (and a letter) can follow the sum line by line. Where it cannot be computed (no schedule,
another currency, no deciding clause) there is no amount, and `reason` says why: a missing
figure is never a zero.

Pure: the schedule and the deciding clause's place in the clause tree are handed in. Payable and
its steps are a contract the store keeps too (models.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from claims_crew.models import Payable, PayableStep
from claims_crew.policy.ids import clause_key
from claims_crew.policy.schedule import Schedule, ScheduleItem, ScheduleKind, ScheduleSource


def compute_payable(
    claimed: Decimal, claim_currency: str, source: ScheduleSource, within: Sequence[str]
) -> Payable:
    """The payable amount for a claim decided covered on the clause `within[0]`.

    `within` is the deciding clause's id then the ids of the clauses it sits within, innermost
    first (the clause tree's parents); empty when the decision names no clause.
    """
    deciding = within[0] if within else None
    schedule = source.schedule
    if schedule is None:
        return Payable.none(claim_currency, source.problem or f"{source.name}: no schedule")
    if claim_currency != schedule.currency:
        return Payable.none(
            claim_currency,
            f"the claim is in {claim_currency}, the schedule ({source.name}) in "
            f"{schedule.currency}: no exchange rate is applied in code",
            deciding,
        )
    if deciding is None:
        return Payable.none(schedule.currency, "the decision rests on no clause of cover")
    keys = [clause_key(c) for c in within]
    steps = [
        PayableStep(
            kind="claimed",
            clause_id=None,
            before=claimed,
            after=claimed,
            note=f"amount claimed in the claim file, {claim_currency}",
        )
    ]
    limit = _innermost(schedule, "limit", keys)
    caps = [limit] if limit is not None else []
    caps += sorted(_applying(schedule, "sub_limit", keys), key=lambda i: -_depth(i, keys))
    for item in caps:
        steps.append(_capped(item, steps[-1].after))
    if (deductible := _innermost(schedule, "deductible", keys)) is not None:
        before = steps[-1].after
        steps.append(
            PayableStep(
                kind="deductible",
                clause_id=deductible.clause,
                before=before,
                after=max(before - deductible.amount, Decimal(0)),
                note=f"less the deductible of {deductible.amount}{_where(deductible)}",
            )
        )
    return Payable(
        currency=schedule.currency, amount=steps[-1].after, steps=steps, deciding_clause=deciding
    )


def _capped(item: ScheduleItem, before: Decimal) -> PayableStep:
    name = "limit" if item.kind == "limit" else "sub-limit"
    verb = "capped at" if before > item.amount else "within"
    return PayableStep(
        kind=item.kind,
        clause_id=item.clause,
        before=before,
        after=min(before, item.amount),
        note=f"{verb} the {name} of {item.amount}{_where(item)}",
    )


def _where(item: ScheduleItem) -> str:
    return f" for {item.section}" if item.section else " for the whole policy"


def _depth(item: ScheduleItem, keys: Sequence[str]) -> int:
    """How far out the item's section is from the deciding clause: 0 for the clause itself,
    len(keys) for the whole policy; -1 when it does not apply."""
    if item.section is None:
        return len(keys)
    key = clause_key(item.section)
    return keys.index(key) if key in keys else -1


def _applying(schedule: Schedule, kind: ScheduleKind, keys: Sequence[str]) -> list[ScheduleItem]:
    return [i for i in schedule.items if i.kind == kind and _depth(i, keys) >= 0]


def _innermost(schedule: Schedule, kind: ScheduleKind, keys: Sequence[str]) -> ScheduleItem | None:
    """The item of `kind` for the narrowest section the deciding clause falls in: a section's
    own limit or deductible replaces the whole policy's."""
    items = _applying(schedule, kind, keys)
    return min(items, key=lambda i: _depth(i, keys)) if items else None
