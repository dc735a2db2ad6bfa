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

from claims_crew.resolver.case import Case
from claims_crew.resolver.facts import fact_problems
from claims_crew.resolver.resolution import FactCheck, Resolution, SideReview, Trail
from claims_crew.vocabulary import FACT_FIELDS, SIDES, AbstainReason, FactName, ReasonCode, Side


def abstained(
    case: Case,
    trail: Trail,
    sides: dict[Side, SideReview],
    abstaining: list[Side],
    facts: list[FactCheck],
    config_sha256: str,
) -> Resolution:
    """ESCALATED (abstained, plus each agent's reason), with the question its reason asks."""
    reasons: list[AbstainReason] = list(
        dict.fromkeys(r for s in abstaining if (r := sides[s].abstain_reason) is not None)
    )
    said = "; ".join(f"{s} cannot tell ({sides[s].abstain_reason})" for s in abstaining)
    for other in (s for s in SIDES if s not in abstaining):
        said += f"; {other} answers {sides[other].answer}"
    trail.add("abstain", True, said, "abstained")
    questions: list[str] = []
    missing: list[FactName] = []
    unverified: list[ReasonCode] = []
    if "needs_more_evidence" in reasons:
        open_facts = fact_problems(case, FACT_FIELDS, facts)
        questions += open_facts.questions()
        missing = open_facts.missing
        unverified = ["fact_unverified"] if open_facts.unverified else []
        if not questions:
            questions.append("Every fact intake extracted is known: what evidence would settle it?")
    if "interpretation_unresolved" in reasons:
        questions.append("Which reading do the cited clauses support: is the claim covered?")
    return Resolution(
        outcome="ESCALATED",
        rule="abstain",
        reason=f"an agent could not tell: {said}",
        reason_codes=["abstained", *reasons, *unverified],
        question=" ".join(questions),
        missing_facts=missing,
        trail=trail.steps,
        sides=sides,
        config_sha256=config_sha256,
    )
