"""The prefer rule: only one side's evidence holds, and that side wins if it is sure enough.

One side alone is held to the floor two agreeing sides would need (prefer.min_confidence,
by default accept.min_confidence): a side that holds only because the other's evidence failed
is no surer for it.
"""

from __future__ import annotations

from claims_crew.resolver.resolution import Resolution
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import Side


def prefer(context: Context) -> Resolution | None:
    """PREFERRED; ESCALATED below the floor; passes when neither side or both sides hold."""
    holding = context.holding
    if len(holding) != 1:
        both = "both sides' evidence holds" if holding else "neither side's evidence holds"
        context.trail.add("prefer", False, both)
        return None
    [winner] = holding
    loser: Side = "fraud" if winner == "policy" else "policy"
    won, lost = context.sides[winner], context.sides[loser]
    sourced = "tool-sourced" if won.source_checked else "re-read only"
    confidence = won.confidence or 0.0
    floor = context.config.prefer_floor
    if confidence < floor:
        below = f"{confidence:.2f} is below {floor:.2f}"
        context.trail.add(
            "prefer",
            False,
            f"only {winner}'s evidence holds, but its confidence {below}",
            "low_confidence",
        )
        return context.escalated(
            "prefer",
            reason=f"only {winner}'s evidence holds up on re-reading, but its confidence "
            f"{below}; {loser}'s fails: " + ", ".join(lost.reason_codes),
            reason_codes=[*lost.reason_codes, "low_confidence"],
            question=f"Only {winner}'s evidence holds, and it answers {won.answer} "
            f"with confidence {confidence:.2f}: is that right?",
            would_have_been="PREFERRED",
            would_have_won=winner,
        )
    context.trail.add(
        "prefer",
        True,
        f"only {winner}'s evidence holds ({sourced}); {loser}: " + ", ".join(lost.reason_codes),
    )
    return context.reached(
        "PREFERRED",
        "prefer",
        winner=winner,
        answer=won.answer,
        reason=f"only {winner}'s evidence holds up on re-reading ({sourced}); "
        f"{loser}'s fails: " + ", ".join(lost.reason_codes),
        reason_codes=lost.reason_codes,
    )
