"""The facts a conflict turns on: which intake left unknown, which contradict the claim file.

The conflict rule asks a person about them when the agents disagree, and the abstain rule when
an agent says it cannot tell for want of a fact. Either way the question names the fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from claims_crew.models import ParseFailure
from claims_crew.resolver.case import Case
from claims_crew.vocabulary import FactName

FACT_QUESTIONS: dict[FactName, str] = {
    "loss_type": "What kind of loss is it?",
    "cause": "What caused the loss?",
    "date_of_loss": "When did the loss happen?",
    "damage_start_date": "When did the damage start?",
    "amount_claimed": "How much is claimed?",
}


def fact_problems(case: Case, names: Sequence[FactName]) -> tuple[list[FactName], list[str]]:
    """Of the named facts: which intake left unknown, and which contradict the claim file."""
    facts = case.facts
    if isinstance(facts, ParseFailure):
        return list(names), []
    unknown = [n for n in names if getattr(facts, n) is None]
    disputed = []
    claim_file = case.claim_file
    if "date_of_loss" in names and facts.date_of_loss not in (None, claim_file.date_of_loss):
        disputed.append(
            f"date_of_loss: the claim file says {claim_file.date_of_loss}, "
            f"intake read {facts.date_of_loss}"
        )
    amount = facts.amount_claimed
    if (
        "amount_claimed" in names
        and amount is not None
        and Decimal(str(amount)) != claim_file.amount
    ):
        disputed.append(
            f"amount_claimed: the claim file says {claim_file.amount}, intake read {amount}"
        )
    return unknown, disputed
