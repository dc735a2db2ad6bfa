"""resolution.yaml `expiry`: how long a decision stands before it must be looked at again.

A rule names a duration per outcome and/or per risk class. Where both an outcome rule and a
risk-class rule apply, the shorter one wins: a decision is trusted for no longer than the most
cautious rule that speaks about it. `default` applies only where neither does; it is null (never
expires) unless set. Pure: the store turns the duration into a time stamp when it records the
decision.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from claims_crew.vocabulary import Outcome, RiskClass

DURATION_UNITS = {"h": "hours", "d": "days", "w": "weeks"}
_DURATION = re.compile(r"^([1-9][0-9]{0,5})([hdw])$")


def duration(text: str) -> timedelta:
    """`12h`, `30d` or `2w` as a timedelta; anything else is a ValueError naming the forms."""
    match = _DURATION.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(
            f"{text!r} is not a duration: write a whole number and a unit, "
            "h (hours), d (days) or w (weeks), e.g. 30d"
        )
    return timedelta(**{DURATION_UNITS[match.group(2)]: int(match.group(1))})


def _checked(text: str) -> str:
    duration(text)
    return text.strip()


Duration = Annotated[str, AfterValidator(_checked)]


class Expiry(BaseModel):
    """When a decision expires: per outcome, per risk class, else `default`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default: Duration | None = Field(
        None, description="For a decision no other rule names; null: it never expires."
    )
    by_outcome: dict[Outcome, Duration] = Field(
        default_factory=dict, description="Outcome (ACCEPTED, ESCALATED, …) → duration."
    )
    by_risk_class: dict[RiskClass, Duration] = Field(
        default_factory=dict, description="The claim file's risk class → duration."
    )

    def valid_for(self, outcome: str, risk_class: str | None) -> timedelta | None:
        """How long a decision with this outcome on a claim of this risk class stands: the
        shortest of the rules that name it, else the default; None: it never expires."""
        named = [
            duration(text)
            for text in (
                self.by_outcome.get(outcome),  # type: ignore[call-overload]
                self.by_risk_class.get(risk_class) if risk_class else None,  # type: ignore[call-overload]
            )
            if text is not None
        ]
        if named:
            return min(named)
        return duration(self.default) if self.default is not None else None
