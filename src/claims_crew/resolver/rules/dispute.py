"""The dispute rule: both sides' evidence holds, every fact is agreed, and they read the clauses
differently. A question of interpretation, for the adjudicator (adjudication.py) or a person;
with debate.rounds 1, each side first sees the other's claim once (debate.py).
"""

from __future__ import annotations

from claims_crew.records.resolution import Resolution
from claims_crew.resolver.rules.context import Context


def dispute(context: Context) -> Resolution | None:
    """ADJUDICATION_REQUIRED when both sides hold (the conflict rule having passed); else
    passes."""
    if len(context.holding) != 2:
        return None
    context.trail.add("dispute", True, "same facts, sound evidence, different reading of the words")
    return context.reached(
        "ADJUDICATION_REQUIRED",
        "dispute",
        reason="both sides' evidence holds and the facts are agreed; they read the clauses "
        "differently",
        question="Which reading do the clauses support: "
        f"policy ({context.policy.answer}) or fraud ({context.fraud.answer})?",
    )
