"""What every rule reads: the case, the config, each intake fact's check, and the trail so far.

The rules are pure functions of it; the only thing they add to it is their step in the trail.
Each side's re-read review is worked out once, when a rule first asks for it: after the checks,
so both answers are known to have parsed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from claims_crew.models import Claim
from claims_crew.records.resolution import (
    FactCheck,
    Reached,
    Resolution,
    SideReview,
    Trail,
)
from claims_crew.resolver.case import Case, FittingClause
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.evidence import review_side, tool_sourced
from claims_crew.resolver.exclusions import unread
from claims_crew.resolver.fact_sources import check_facts
from claims_crew.vocabulary import SIDES, FactName, Outcome, ReasonCode, RuleName, Side


@dataclass(frozen=True)
class Context:
    case: Case
    config: ResolutionConfig
    facts: list[FactCheck]
    trail: Trail = field(default_factory=Trail)

    @classmethod
    def of(cls, case: Case, config: ResolutionConfig) -> Context:
        """Each intake fact is checked first: the resolution keeps the checks, whichever rule
        decides."""
        return cls(case, config, check_facts(case, config.fact_cues))

    @cached_property
    def digest(self) -> str:
        return self.config.digest()

    @property
    def policy(self) -> Claim:
        assert isinstance(self.case.policy, Claim), "the checks pass only readable answers"
        return self.case.policy

    @property
    def fraud(self) -> Claim:
        assert isinstance(self.case.fraud, Claim), "the checks pass only readable answers"
        return self.case.fraud

    @cached_property
    def sides(self) -> dict[Side, SideReview]:
        """Each side's answer with its cited clauses checked (the reread rule)."""
        return {
            side: review_side(
                side, claim, self.case.view, tool_sourced(self.case.ledger, side), self.config
            )
            for side, claim in zip(SIDES, (self.policy, self.fraud), strict=True)
        }

    @cached_property
    def unread_exclusions(self) -> list[FittingClause]:
        """The exclusions the claim's words fit that neither agent read (exclusions.py)."""
        return unread(self.case)

    @property
    def holding(self) -> list[Side]:
        """The sides whose evidence survived the re-read."""
        return [s for s in SIDES if self.sides[s].holds]

    def escalated(
        self,
        rule: RuleName,
        *,
        reason: str,
        question: str,
        reason_codes: Sequence[ReasonCode] = (),
        missing_facts: Sequence[FactName] = (),
        would_have_been: Outcome | None = None,
        would_have_won: Side | None = None,
    ) -> Resolution:
        """ESCALATED by `rule`, with both sides' reviews and the trail so far."""
        return Resolution.escalated(
            rule,
            reason=reason,
            question=question,
            reason_codes=reason_codes,
            missing_facts=missing_facts,
            would_have_been=would_have_been,
            would_have_won=would_have_won,
            trail=self.trail.steps,
            sides=self.sides,
            facts=self.facts,
            config_sha256=self.digest,
        )

    def reached(
        self,
        outcome: Reached,
        rule: RuleName,
        *,
        reason: str,
        winner: Side | None = None,
        answer: str | None = None,
        reason_codes: Sequence[ReasonCode] = (),
        question: str | None = None,
    ) -> Resolution:
        """An outcome `rule` reaches, for the gates to let stand or hold back."""
        return Resolution.reached(
            outcome,
            rule,
            reason=reason,
            winner=winner,
            answer=answer,
            reason_codes=reason_codes,
            question=question,
            trail=self.trail.steps,
            sides=self.sides,
            facts=self.facts,
            config_sha256=self.digest,
        )
