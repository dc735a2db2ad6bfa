"""The neither rule: no side's evidence survives the re-read, so nothing the agents said can be
decided on."""

from __future__ import annotations

from claims_crew.records.resolution import Resolution
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import SIDES


def neither(context: Context) -> Resolution | None:
    """ESCALATED when no side holds; else passes."""
    if context.holding:
        return None
    codes = list(dict.fromkeys(c for s in SIDES for c in context.sides[s].reason_codes))
    context.trail.add(
        "neither", True, "no side's evidence survives the re-read", codes[0] if codes else None
    )
    return context.escalated(
        "neither",
        reason="neither side's evidence holds up on re-reading: " + ", ".join(codes),
        reason_codes=codes,
        question="Neither agent's cited clauses hold up: is this claim covered, and under "
        "which clause?",
    )
