"""The conflict rule: both sides' evidence holds and the answers differ while a fact is open.

A fact is open when intake left it unknown, stated it without a source the claim bears out
(fact_unverified), or read it differently from the claim file. With targeted_evidence on, the
pipeline first asks intake once about exactly those facts (targeted.py) and runs the rules
again on any fact whose quote checks out.
"""

from __future__ import annotations

from claims_crew.records.resolution import Resolution
from claims_crew.resolver.facts import OpenFacts, fact_problems
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import FACT_FIELDS, ReasonCode


def conflict(context: Context) -> Resolution | None:
    """ESCALATED with the open facts' question; passes unless both sides hold."""
    if len(context.holding) != 2:
        return None
    policy, fraud = context.policy, context.fraud
    # Which facts an answer rests on is the agent's own account of itself, so it only orders
    # the question: every fact intake left open or that contradicts the claim file counts.
    relied = list(dict.fromkeys([*policy.facts_relied_on, *fraud.facts_relied_on, *FACT_FIELDS]))
    open_facts = fact_problems(context.case, relied, context.facts)
    if not open_facts.any:
        context.trail.add(
            "conflict", False, "every fact either side relies on is known and undisputed"
        )
        return None
    unverified: list[ReasonCode] = ["fact_unverified"] if open_facts.unverified else []
    context.trail.add(
        "conflict",
        True,
        "facts of the claim are open: " + "; ".join(open_facts.questions()),
        "needs_more_evidence",
    )
    return context.escalated(
        "conflict",
        reason="both sides' evidence holds, but the answers differ while facts are "
        + _open_detail(open_facts),
        reason_codes=["needs_more_evidence", *unverified],
        question=" ".join(open_facts.questions()),
        missing_facts=open_facts.missing,
    )


def _open_detail(open_facts: OpenFacts) -> str:
    parts = []
    if open_facts.unknown:
        parts.append("unknown: " + ", ".join(open_facts.unknown))
    if open_facts.unverified:
        parts.append(
            "not borne out by the claim: " + ", ".join(c.name for c in open_facts.unverified)
        )
    if open_facts.disputed:
        parts.append("disputed")
    return "; ".join(parts)
