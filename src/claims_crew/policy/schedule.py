"""A policy's schedule: its currency, deductibles (excesses), limits and sub-limits by section.

A schedule is written in policies/index.yaml under the policy's entry, or in a schedule file per
policyholder (policies/schedules/NAME.yaml) that a claim file names. Every item names the clause
of the wording it comes from, so `config check` can read that clause and a person can check the
figure against the printed words; the amount payable is computed from it in code
(resolver/payable.py), in decimals, never by a model.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from claims_crew.errors import ConfigError, validation_problems

# limit: the most paid for a claim under a cover section; sub_limit: a narrower cap on a part of
# a section, applied after its limit; deductible: the first part of a claim the policyholder pays.
ScheduleKind = Literal["limit", "sub_limit", "deductible"]
SCHEDULE_KINDS: tuple[ScheduleKind, ...] = get_args(ScheduleKind)


class ScheduleItem(BaseModel):
    """One figure of a schedule, with the clause of the wording it comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ScheduleKind
    amount: Decimal = Field(ge=0, allow_inf_nan=False, description="In the schedule's currency.")
    clause: str = Field(min_length=1, description="Id of the clause the figure comes from.")
    section: str | None = Field(
        None,
        description="Id of the cover section (a clause) it applies to, and every clause within "
        "it; left out: the whole policy.",
    )

    @field_validator("amount", mode="before")
    @classmethod
    def _no_binary_fraction(cls, value: object) -> object:
        # YAML reads 0.1 as a binary float; a figure with a fraction is written as text instead.
        if isinstance(value, float) and not value.is_integer():
            raise ValueError("write an amount with pence or cents as text, e.g. '99.50'")
        return value


class Schedule(BaseModel):
    """A policy's (or a policyholder's) schedule."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code, e.g. GBP.")
    items: tuple[ScheduleItem, ...] = ()


def schedules_dir(policies_root: Path) -> Path:
    """Where a policyholder's schedule files live, beside policies/index.yaml."""
    return policies_root / "schedules"


def load_schedule_file(path: Path) -> Schedule:
    """A policyholder's schedule file, validated; a bad one is a ConfigError naming it."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: schedule file not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    try:
        return Schedule.model_validate(raw or {})
    except ValidationError as exc:
        raise ConfigError(f"{path}: {'; '.join(validation_problems(exc, 'schedule'))}") from exc
