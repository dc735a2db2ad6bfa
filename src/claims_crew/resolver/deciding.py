"""The clauses a decision rests on, in the one order every reader of a decision takes them.

Of the sides that carry the decision, the clauses the re-read verified and whose kind supports
the side's answer: those policy_lookup returned first (an automatic decision stands only on one
of them, gates.py), otherwise in the order the sides cited them; each clause once. The amount
payable is computed from the first of them, `review show` names that clause beside the amount,
a letter quotes them in this order and a refusal's external code is mapped by the first one's
kind; reading them all through `deciding_checks` keeps these naming the same clause.
"""

from __future__ import annotations

from collections.abc import Iterable

from claims_crew.records.resolution import ClauseCheck, Resolution
from claims_crew.vocabulary import SIDES, Side


def winning_sides(resolution: Resolution) -> list[Side]:
    """The winner; both sides when there is none (an agreement, where both sides won)."""
    return [resolution.winner] if resolution.winner is not None else list(SIDES)


def sides_answering(resolution: Resolution, answer: str) -> list[Side]:
    """The sides whose own answer is `answer` (a letter's or a person's decision may differ
    from the rules'), the side that won, or would have before a gate held it back, first: the
    decision's amount was computed from its clauses."""
    first = resolution.winner or resolution.would_have_won
    answering = [s for s in SIDES if s in resolution.sides and resolution.sides[s].answer == answer]
    return sorted(answering, key=lambda s: s != first)


def deciding_checks(resolution: Resolution, sides: Iterable[Side]) -> list[ClauseCheck]:
    """The verified clauses supporting the answer that `sides` cited, tool-sourced first and
    otherwise in the sides' own order, each policy clause once (its tool-sourced citation kept).

    Deduplicated by the policy's own clause id, not the forgiving clause key: two clauses that
    share a label ("4.2" and "4.2~2") are different clauses, both of which a letter quotes.
    """
    supporting = sorted(
        (
            c
            for side in sides
            if side in resolution.sides
            for c in resolution.sides[side].clauses
            if c.status == "verified" and c.supports_answer and c.clause_id is not None
        ),
        key=lambda c: not c.tool_sourced,  # stable: the sides' own order otherwise
    )
    once: dict[str | None, ClauseCheck] = {}
    for c in supporting:
        once.setdefault(c.clause_id, c)
    return list(once.values())
