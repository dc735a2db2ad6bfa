"""config/desk.yaml: how new escalations are assigned, and which decisions need four eyes.

A decision that needs four eyes is first a proposal; a different reviewer confirms it (and only
then does it decide the claim) or returns it. Without the file, escalations are assigned by
line, then load, and no decision needs a second reviewer: the desk works as it did before.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from claims_crew import settings
from claims_crew.desk.assignment import STEPS, Step
from claims_crew.desk.authority import PAYS, Escalated, Paid, amount_at_stake, refusal
from claims_crew.errors import OutsideAuthority, StoreError, model_from_yaml
from claims_crew.records import ReviewerSettings, among
from claims_crew.vocabulary import HumanDecision

FILE_NAME = "desk.yaml"
# A decision that states nothing yet is decided on no clause: the letter asks for evidence.
CLAUSE_FREE: tuple[HumanDecision, ...] = ("needs_more_evidence",)


class Assignment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: list[Step] = Field(
        default_factory=lambda: list(STEPS),
        description="Applied in order to the reviewers: line, least_loaded.",
    )


class FourEyes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    always: list[HumanDecision] = Field(
        default_factory=list, description="Decisions that always need a second reviewer."
    )
    covered_over: Decimal | None = Field(
        None, ge=0, description="A payment over this amount needs a second reviewer."
    )

    def needed(self, decision: str, amount: Decimal | None) -> bool:
        """Whether `decision` on a claim worth `amount` needs a second reviewer; a payment of
        an unknown amount does, when any payment may."""
        if decision in self.always:
            return True
        if decision != PAYS or self.covered_over is None:
            return False
        return amount is None or amount > self.covered_over


class Excluding(Escalated, Protocol):
    """An escalation with the reviewers who may not decide it (an appeal's earlier one)."""

    @property
    def claim_id(self) -> str: ...

    @property
    def excluded_reviewers(self) -> tuple[str, ...]: ...


class DeskRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    assignment: Assignment = Field(default_factory=Assignment)
    four_eyes: FourEyes = Field(default_factory=FourEyes)
    decide_without_clause: list[HumanDecision] = Field(
        default_factory=lambda: list(CLAUSE_FREE),
        description="Decisions a person may make without naming the clause they rest on.",
    )

    def clause_refusal(self, decision: str, named: int) -> str | None:
        """Why a person's `decision` naming `named` clauses is refused; None when it is not.
        A letter for a covered or not covered decision quotes the clause it rests on (a denial
        must cite one), so such a decision names at least one unless this desk allows none."""
        if named or decision in self.decide_without_clause:
            return None
        allowed = ", ".join(self.decide_without_clause) or "no decision"
        return (
            f"a {decision} decision must name the clause(s) it rests on; "
            f"config/desk.yaml decide_without_clause allows none only for: {allowed}"
        )

    def judge(
        self,
        name: str,
        settings: ReviewerSettings,
        decision: str,
        escalation: Excluding,
        payable: Paid | None,
    ) -> bool:
        """Refuse `name`'s `decision` on `escalation` where it is beyond the settings they have
        (OutsideAuthority), or where they may not decide it (StoreError, as an appeal's earlier
        reviewer); True when it needs a second reviewer. What is at stake is the decision's
        amount `payable` where it has one. The store asks it of the reviewer's row as it stands
        in the transaction that records the decision, so a limit lowered meanwhile holds."""
        if among(name, escalation.excluded_reviewers):
            raise StoreError(
                f"{name} decided claim {escalation.claim_id} before it was appealed; "
                "a different reviewer decides the appeal"
            )
        at_stake = amount_at_stake(escalation, payable)
        if why_not := refusal(name, settings, decision, at_stake):
            raise OutsideAuthority(why_not)
        return self.four_eyes.needed(decision, at_stake)


def load_desk(config_dir: Path | None = None) -> DeskRules:
    """config/desk.yaml, validated (a ConfigError naming each key at fault); a missing file
    gives the defaults."""
    path = (config_dir if config_dir is not None else settings.config_dir()) / FILE_NAME
    try:
        return model_from_yaml(path, DeskRules, "desk")
    except FileNotFoundError:
        return DeskRules()
