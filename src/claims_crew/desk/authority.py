"""A reviewer's role and authority, and whether a decision is within it.

A reviewer takes some lines of business (none named: every line), may approve payments up to
an amount (none: any amount), and may or may not deny. What a decision is worth is the amount
at stake (`amount_at_stake`): every check of authority and of four eyes goes through it. For a
covered decision with an amount payable (the policy's schedule applied), that amount; else what
the claim file claims.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Protocol

from claims_crew.records import ReviewerSettings


def desk_change_refusal(name: str, settings: ReviewerSettings, leads: int) -> str | None:
    """Why `name` may not change reviewers' settings; None if they may. Once the desk has a
    lead, only a lead may: otherwise a reviewer could raise their own authority. A desk with no
    lead (a store from before roles, a team that has none) is changed by any reviewer, as before
    roles existed. The store asks it of the actor's row as it stands when the change is
    written (`leads`: the leads the desk has then)."""
    if leads == 0 or settings.role == "lead":
        return None
    return f"{name} is not a lead; once the desk has a lead, only a lead may change it"


def reassign_refusal(name: str, settings: ReviewerSettings, leads: int) -> str | None:
    """Why `name` may not give an escalation to another reviewer: only a lead may."""
    del leads  # a reassignment needs a lead whatever the desk
    return None if settings.role == "lead" else f"{name} is not a lead; only a lead may reassign"


def reading_confirm_refusal(name: str, settings: ReviewerSettings, leads: int) -> str | None:
    """Why `name` may not confirm an endorsement's reading (policy/confirmations.py): only a
    lead may, whatever the desk, since a confirmed reading decides claims without a person."""
    del leads
    if settings.role == "lead":
        return None
    return f"{name} is not a lead; only a lead may confirm an endorsement's reading"


# The decision that pays; the one that denies. (needs_more_evidence does neither.)
PAYS = "covered"
DENIES = "not_covered"


class Escalated(Protocol):
    """What the amount claimed is read from: an escalation (store/queue.py)."""

    @property
    def amount(self) -> str | None: ...


class Paid(Protocol):
    """What the amount payable is read from: a decision's Payable (resolver/payable.py)."""

    @property
    def amount(self) -> Decimal | None: ...


def amount_at_stake(escalation: Escalated, payable: Paid | None = None) -> Decimal | None:
    """What a decision on an escalation is worth. The one place it is read: the amount payable
    where the decision has one (a covered decision under a schedule: limits and deductible
    applied), else the amount the claim file claims (the escalation's `amount`); None when the
    claim names none, or nothing that is a number."""
    if payable is not None and payable.amount is not None:
        return payable.amount
    if escalation.amount is None:
        return None
    try:
        value = Decimal(escalation.amount)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def refusal(
    name: str, settings: ReviewerSettings, decision: str, amount: Decimal | None
) -> str | None:
    """Why `name` may not make `decision` on a claim worth `amount`; None if they may."""
    if decision == DENIES and not settings.may_deny:
        return f"{name} may not deny claims"
    if decision == PAYS and settings.max_amount is not None:
        if amount is None:
            return (
                f"{name} may approve up to {settings.max_amount}, and this claim names no "
                "amount to check it against"
            )
        if amount > settings.max_amount:
            return f"{name} may approve up to {settings.max_amount}; this claim is for {amount}"
    return None
