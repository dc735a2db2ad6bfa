"""Evidence: each side's cited clauses re-read and checked, and which came from the lookup tool.

An agent's evidence holds only when every clause it cites exists, is quoted truly from the
wording in force (not from the form's words an endorsement replaced), and at least one is of a
kind that can support its answer. Whether the clause came from policy_lookup or from
the model's memory is recorded beside that, from the tool ledger alone: what an agent says about
its own sources is never taken on trust. An automatic outcome needs more than evidence that
holds: a supporting clause the tool returned (`looked_up_support`, applied by gates.py).

An agent that abstains has no answer for a clause to support: what it cites is still re-read
and shown, but its side never holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from claims_crew.models import Claim, LedgerEntry
from claims_crew.policy.ids import clause_key
from claims_crew.records.resolution import ClauseCheck, SideReview
from claims_crew.resolver.case import PolicyView, ReadClause
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.quotes import quote_in
from claims_crew.vocabulary import (
    ABSTENTION,
    REBUTTAL_TASK_OF,
    TASK_OF,
    QuoteStatus,
    ReasonCode,
    Side,
)


def tool_sourced(ledger: Sequence[LedgerEntry], side: Side) -> frozenset[str]:
    """Clause keys policy_lookup returned within the side's own tasks (its review, and its
    rebuttal in a debate round)."""
    tasks = {TASK_OF[side], REBUTTAL_TASK_OF[side]}
    return frozenset(
        clause_key(cid)
        for e in ledger
        if e.task_name in tasks or (e.task_name is None and e.agent_role == side)
        for cid in e.returned_clause_ids
    )


def review_side(
    side: Side, claim: Claim, view: PolicyView, sourced: frozenset[str], config: ResolutionConfig
) -> SideReview:
    """Re-read every clause one side cites; it holds when all are real and quoted truly and at
    least one is of a kind that can support its answer (an exclusion cited alongside a grant for
    "covered" is fine: arguing an exclusion does not apply is part of the answer)."""
    supporting = config.evidence_kinds.get(claim.answer, ())
    checks = []
    for evidence in claim.evidence:
        clause = view.clauses.get(evidence.clause_id)
        is_sourced = clause_key(evidence.clause_id) in sourced or (
            clause is not None and clause_key(clause.id) in sourced
        )
        if clause is None:
            checks.append(
                ClauseCheck(
                    cited=evidence.clause_id,
                    clause_id=None,
                    status="clause_not_found",
                    supports_answer=False,
                    tool_sourced=is_sourced,
                    quote=evidence.quote,
                )
            )
            continue
        checks.append(
            ClauseCheck(
                cited=evidence.clause_id,
                clause_id=clause.id,
                title=clause.title,
                kind=clause.kind,
                status=quote_status(evidence.quote, clause),
                supports_answer=clause.kind in supporting,
                tool_sourced=is_sourced,
                quote=evidence.quote,
                text=clause.text,
                pages=list(clause.pages),
                amended_by=clause.amended.cited() if clause.amended else None,
                original=clause.amended.original if clause.amended else None,
            )
        )
    abstains = claim.answer == ABSTENTION
    codes: list[ReasonCode] = ["abstained"] if abstains else []
    if not checks and not abstains:
        codes.append("no_evidence")
    if any(c.status == "clause_not_found" for c in checks):
        codes.append("clause_not_found")
    if any(c.status == "quote_mismatch" for c in checks):
        codes.append("quote_mismatch")
    if any(c.status == "superseded" for c in checks):
        codes.append("superseded_wording")
    found = [c for c in checks if c.status != "clause_not_found"]
    if found and not abstains and not any(c.supports_answer for c in found):
        # Only a real clause can be of the wrong kind; a missing one is clause_not_found alone.
        codes.append("kind_mismatch")
    return SideReview(
        side=side,
        parsed=True,
        answer=claim.answer,
        confidence=claim.confidence,
        holds=not codes,
        source_checked=bool(checks) and all(c.tool_sourced for c in checks),
        reason_codes=codes,
        clauses=checks,
        facts_relied_on=list(claim.facts_relied_on),
        abstain_reason=claim.abstain_reason if abstains else None,
    )


def quote_status(quote: str, clause: ReadClause) -> QuoteStatus:
    """Verified when the quote is in the clause in force. A quote found only in the form's
    words an endorsement replaced, deleted or set aside is "superseded": the policyholder's
    contract no longer says it, so it holds no more than a misquote does, but a person is told
    which wording it came from."""
    if quote_in(quote, clause.passage):
        return "verified"
    if clause.original is not None and quote_in(quote, clause.original):
        return "superseded"
    return "quote_mismatch"


def looked_up_support(review: SideReview) -> list[ClauseCheck]:
    """The side's clauses an automatic outcome may rest on: verified on re-reading, of a kind
    that supports the side's answer, and returned to that side by policy_lookup."""
    return [
        c for c in review.clauses if c.status == "verified" and c.supports_answer and c.tool_sourced
    ]
