"""A policy's schedule: its currency, deductibles (excesses), limits and sub-limits by section.

A schedule is written in policies/index.yaml under the policy's entry, or in a schedule file per
policyholder (policies/schedules/NAME.yaml) that a claim file names. Every item names the clause
of the wording it comes from, so `config check` can read that clause and a person can check the
figure against the printed words; the amount payable is computed from it in code
(resolver/payable.py), in decimals, never by a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from claims_crew.errors import ConfigError
from claims_crew.policy.confined import inside
from claims_crew.settings.yaml_files import model_from_yaml

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
    policy: str | None = Field(
        None, description="In a policyholder's file: the policy id (index.yaml) it belongs to."
    )
    items: tuple[ScheduleItem, ...] = ()


def schedules_dir(policies_root: Path) -> Path:
    """Where a policyholder's schedule files live, beside policies/index.yaml."""
    return policies_root / "schedules"


@dataclass(frozen=True)
class ScheduleSource:
    """The schedule a claim is paid under and where it was written, or why there is none."""

    name: str  # "HM-HOME-001 in policies/index.yaml", or the schedule file's name
    schedule: Schedule | None
    problem: str | None = None  # why there is no schedule, in words


def find_schedule(
    policies_root: Path, policy_id: str, in_index: Schedule | None, claim_names: str | None
) -> ScheduleSource:
    """The claim's own schedule file when it names one, else the policy's in index.yaml.

    A schedule file that cannot be read is a problem of this claim's amount, not of the run:
    the claim gets no amount, and the reason says which file and why.
    """
    if claim_names is not None:
        try:
            # The declarations an issued policy names, or the claim's own: never a file
            # outside policies/schedules/ (`../`, an absolute path, a link leading out).
            path = inside(schedules_dir(policies_root), claim_names, "schedule file")
            schedule = load_schedule_file(path)
        except ConfigError as exc:
            return ScheduleSource(claim_names, None, str(exc))
        if schedule.policy not in (None, policy_id):
            return ScheduleSource(
                claim_names, None, f"{claim_names} is for policy {schedule.policy}, not {policy_id}"
            )
        return ScheduleSource(claim_names, schedule)
    name = f"{policy_id} in policies/index.yaml"
    if in_index is None:
        return ScheduleSource(
            name, None, f"policy {policy_id} has no schedule and the claim names no schedule file"
        )
    return ScheduleSource(name, in_index)


def load_schedule_file(path: Path) -> Schedule:
    """A policyholder's schedule file, validated; a bad one is a ConfigError naming it."""
    try:
        return model_from_yaml(path, Schedule, "schedule")
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: schedule file not found") from exc
