"""The exclusions a decision must answer: those the claim's words fit, read by no agent.

Two agents that agree a claim is covered may both have missed the clause that excludes it: on
the flood claim C-1045, each can cite a real grant it looked up, and neither the flood exclusion.
An adjuster reads the exclusions that fit the facts before agreeing, and so does the code:
reread.py searches the policy for them with the claim's words (policy/fit.py), and the rules ask
here, from the tool ledger and the cited evidence alone, whether an agent read each one. An
agent read a clause when policy_lookup returned it, or a clause it sits within, to the agent's
own tasks, or when the agent cited it and the re-read found it; what an agent says it checked is
never taken on trust.

The agree rule escalates an agreement on an answer those exclusions argue against (covered)
while one is unread (exclusion_unchecked); the prefer rule does the same for one side winning
alone, and, with `exclusions.guard_prefer`, turns a win over a side that answered not covered
into a dispute when an exclusion fits (rules/agree.py, rules/prefer.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from claims_crew.models import Claim, ClaimFile, IntakeFacts, ParseFailure
from claims_crew.policy.ids import clause_key
from claims_crew.resolver.case import Case, FittingClause
from claims_crew.resolver.evidence import tool_sourced
from claims_crew.vocabulary import SIDES


def claim_words(claim_file: ClaimFile, facts: IntakeFacts | ParseFailure) -> str:
    """What the search reads: the claimant's description, then intake's loss type and cause.

    The claimant's words come first because intake's are a model's reading of them. Intake's
    can only add terms (any term may match, and a score only grows with the terms that do), so
    an intake misled by the claim cannot hide an exclusion the description fits.
    """
    parts = [claim_file.description]
    if isinstance(facts, IntakeFacts):
        parts += [(facts.loss_type or "").replace("_", " "), facts.cause or ""]
    return "\n".join(p for p in parts if p)


def read_by_agents(case: Case) -> frozenset[str]:
    """Keys of the clauses the policy or fraud agent read: returned to its tasks by
    policy_lookup, or cited and found on re-reading."""
    seen = {key for side in SIDES for key in tool_sourced(case.ledger, side)}
    for side in SIDES:
        claim = case.claim(side)
        if isinstance(claim, Claim):
            for evidence in claim.evidence:
                if (clause := case.view.clauses.get(evidence.clause_id)) is not None:
                    seen.add(clause_key(clause.id))
    return frozenset(seen)


def unread(case: Case) -> list[FittingClause]:
    """The exclusions the claim's words fit that neither agent read."""
    seen = read_by_agents(case)
    return [fit for fit in case.exclusions if not fit.shown_by & seen]


def names(fits: Sequence[FittingClause]) -> str:
    """The clauses, as a person reads them: "7.2 (Flood), 7.1(c) (failure or lack of grout…)"."""
    return ", ".join(fit.named() for fit in fits)


def unread_detail(fits: Sequence[FittingClause]) -> str:
    """Why unread exclusions stop a decision: each, with the claim's words it was found on."""
    found = "; ".join(fit.found_on() for fit in fits)
    if len(fits) == 1:
        return f"exclusion {found} fits the claim's words and neither agent looked it up"
    return f"exclusions {found} fit the claim's words and neither agent looked them up"


def unread_question(fits: Sequence[FittingClause], answer: str) -> str:
    """What a person is asked about them."""
    which = "it" if len(fits) == 1 else "one of them"
    return (
        f"Neither agent read {names(fits)}, which the claim's words fit, before answering "
        f"{answer}: does {which} exclude the claim?"
    )
