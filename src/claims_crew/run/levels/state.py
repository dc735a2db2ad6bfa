"""One claim's review as the cascade's levels see it: what they read, and what they change."""

from __future__ import annotations

from dataclasses import dataclass, field

from claims_crew.crew.crew import ClaimsCrew
from claims_crew.crew.ledger import ToolLedger
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver import AdjudicationCheck, Case, Resolution
from claims_crew.resolver.config import ResolutionConfig


@dataclass
class ReviewState:
    """The claim's crew and tool ledger, its case, the rules' latest word, and every model
    answer so far by task name (kept raw in the record). A level that runs updates them;
    `first` stays the case as the crew's first answers made it (the record keeps those)."""

    crew: ClaimsCrew
    inputs: dict[str, str]
    ledger: ToolLedger
    library: PolicyLibrary
    rules: ResolutionConfig
    first: Case
    case: Case
    resolution: Resolution
    raw: dict[str, str] = field(default_factory=dict)
    adjudication: AdjudicationCheck | None = None
