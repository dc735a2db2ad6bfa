"""The abstain rule: an agent that cannot tell never wins, and a person is asked what it could
not settle.

An agent answers `uncertain` (when resolution.yaml allows it) with a typed reason:
needs_more_evidence when a fact its answer turns on is unknown, interpretation_unresolved when
the wording reads both ways. With `abstention.escalate_when: either` (the default) one such
answer sends the claim to a person; with `both`, only two do, and one abstaining side simply
never holds, so the other may still win alone under the prefer rule (floor and provenance
included). bench/rules_safety.py measures the two.
"""

from __future__ import annotations

from claims_crew.records.resolution import Resolution
from claims_crew.resolver.facts import fact_problems
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import (
    ABSTENTION,
    FACT_FIELDS,
    SIDES,
    AbstainReason,
    FactName,
    ReasonCode,
    Side,
)


def abstain(context: Context) -> Resolution | None:
    """ESCALATED when an agent abstains (or both do, with `both`); else passes."""
    sides = context.sides
    abstaining = [s for s in SIDES if sides[s].answer == ABSTENTION]
    when = context.config.abstention.escalate_when
    if abstaining and (when == "either" or len(abstaining) == 2):
        return _abstained(context, abstaining)
    if abstaining:
        [quiet] = abstaining
        context.trail.add(
            "abstain",
            False,
            f"{quiet} cannot tell ({sides[quiet].abstain_reason}); the other side may still "
            "win alone (abstention.escalate_when: both)",
        )
    else:
        context.trail.add("abstain", False, "neither agent abstains")
    return None


def _abstained(context: Context, abstaining: list[Side]) -> Resolution:
    """ESCALATED (abstained, plus each agent's reason), with the question its reason asks."""
    sides = context.sides
    reasons: list[AbstainReason] = list(
        dict.fromkeys(r for s in abstaining if (r := sides[s].abstain_reason) is not None)
    )
    said = "; ".join(f"{s} cannot tell ({sides[s].abstain_reason})" for s in abstaining)
    for other in (s for s in SIDES if s not in abstaining):
        said += f"; {other} answers {sides[other].answer}"
    context.trail.add("abstain", True, said, "abstained")
    questions: list[str] = []
    missing: list[FactName] = []
    unverified: list[ReasonCode] = []
    if "needs_more_evidence" in reasons:
        open_facts = fact_problems(context.case, FACT_FIELDS, context.facts)
        questions += open_facts.questions()
        missing = open_facts.missing
        unverified = ["fact_unverified"] if open_facts.unverified else []
        if not questions:
            questions.append("Every fact intake extracted is known: what evidence would settle it?")
    if "interpretation_unresolved" in reasons:
        questions.append("Which reading do the cited clauses support: is the claim covered?")
    return context.escalated(
        "abstain",
        reason=f"an agent could not tell: {said}",
        reason_codes=["abstained", *reasons, *unverified],
        question=" ".join(questions),
        missing_facts=missing,
    )
