"""The prefer rule: only one side's evidence holds, and that side wins if it is sure enough.

One side alone is held to the floor two agreeing sides would need (prefer.min_confidence,
by default accept.min_confidence): a side that holds only because the other's evidence failed
is no surer for it.

Nor is a side right because the other cited badly. A win for an answer the policy's exclusions
argue against (covered) must answer the exclusions the claim's words fit, as an agreement must
(exclusion_unchecked, exclusions.py). And with `exclusions.guard_prefer`, when the losing side
answered not covered and an exclusion fits the claim, its answer may still be the right one:
the claim is a dispute for the adjudicator, who is shown that exclusion, not a win by default.
"""

from __future__ import annotations

from claims_crew.records.resolution import Resolution, SideReview
from claims_crew.resolver.exclusions import names, unread_detail, unread_question
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import Side


def prefer(context: Context) -> Resolution | None:
    """PREFERRED; ESCALATED below the floor or with an unread exclusion; ADJUDICATION_REQUIRED
    when an exclusion fits the loser's answer; passes when neither side or both sides hold."""
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
    failed = ", ".join(lost.reason_codes)
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
            f"{below}; {loser}'s fails: {failed}",
            reason_codes=[*lost.reason_codes, "low_confidence"],
            question=f"Only {winner}'s evidence holds, and it answers {won.answer} "
            f"with confidence {confidence:.2f}: is that right?",
            would_have_been="PREFERRED",
            would_have_won=winner,
        )
    if (answered := _exclusions_answered(context, winner, won, lost)) is not None:
        return answered
    context.trail.add(
        "prefer", True, f"only {winner}'s evidence holds ({sourced}); {loser}: {failed}"
    )
    return context.reached(
        "PREFERRED",
        "prefer",
        winner=winner,
        answer=won.answer,
        reason=f"only {winner}'s evidence holds up on re-reading ({sourced}); "
        f"{loser}'s fails: {failed}",
        reason_codes=lost.reason_codes,
    )


def _exclusions_answered(
    context: Context, winner: Side, won: SideReview, lost: SideReview
) -> Resolution | None:
    """ESCALATED when the winner's answer leaves a fitting exclusion unread; a dispute when one
    fits the loser's answer (guard_prefer); None when no exclusion stands in the way."""
    config, fits = context.config, context.case.exclusions
    if not config.argued_against(won.answer or "") or not fits:
        return None
    failed = ", ".join(lost.reason_codes)
    if unread := context.unread_exclusions:
        detail = unread_detail(unread)
        context.trail.add(
            "prefer", False, f"only {winner}'s evidence holds, but {detail}", "exclusion_unchecked"
        )
        return context.escalated(
            "prefer",
            reason=f"only {winner}'s evidence holds up on re-reading ({lost.side}'s fails: "
            f"{failed}), but {detail}",
            reason_codes=[*lost.reason_codes, "exclusion_unchecked"],
            question=unread_question(unread, won.answer or ""),
            would_have_been="PREFERRED",
            would_have_won=winner,
        )
    if not (config.exclusions.guard_prefer and config.argued_for(lost.answer or "")):
        return None
    found = "; ".join(fit.found_on() for fit in fits)
    context.trail.add(
        "prefer",
        True,
        f"only {winner}'s evidence holds, but the claim's words fit {found}, which argues for "
        f"{lost.side}'s answer ({lost.answer}): a dispute, not a win by default",
    )
    return context.reached(
        "ADJUDICATION_REQUIRED",
        "prefer",
        reason=f"only {winner}'s evidence holds up on re-reading ({lost.side}'s fails: "
        f"{failed}), but the claim's words fit {names(fits)}, which argues for "
        f"{lost.side}'s answer",
        reason_codes=lost.reason_codes,
        question=f"{winner} answers {won.answer}; {lost.side} answers {lost.answer} but cited "
        f"badly ({failed}). Does {names(fits)} exclude the claim?",
    )
