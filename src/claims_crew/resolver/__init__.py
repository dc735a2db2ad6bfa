"""The resolver: plain-Python rules that decide what the agents' answers mean (no model)."""

from claims_crew.resolver.rules import (
    AdjudicationCheck,
    Case,
    ClauseCheck,
    PolicyView,
    ReadClause,
    Resolution,
    SideReview,
    TrailStep,
    apply_adjudication,
    cited_clauses,
    fold,
    policy_checks,
    quote_in,
    resolve,
)

__all__ = [
    "AdjudicationCheck",
    "Case",
    "ClauseCheck",
    "PolicyView",
    "ReadClause",
    "Resolution",
    "SideReview",
    "TrailStep",
    "apply_adjudication",
    "cited_clauses",
    "fold",
    "policy_checks",
    "quote_in",
    "resolve",
]
