"""Policies as issued: a form, the endorsements on it and the policyholder's declarations.

A policyholder's contract is not the form alone. policies/index.yaml lists the forms (`policies`)
and the endorsements a team issues on them (`endorsements`, each its own PDF with its form
number); a file per issued policy, policies/issued/NUMBER.yaml, says which form it is on, its
period, its declarations (the schedule file of its limits and deductibles) and its endorsements,
each from the day it takes effect, mid-term ones included.

The wording in force on a day is the form with every endorsement effective that day applied in
the order the issued policy lists them (policy/amend.py). A claim names its issued policy with
`policy_number`.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from claims_crew.errors import ConfigError
from claims_crew.policy.change_corrections import ChangeCorrection
from claims_crew.policy.confined import inside
from claims_crew.settings.yaml_files import model_from_yaml


class EndorsementEntry(BaseModel):
    """One endorsement form in policies/index.yaml (`endorsements:`, by form number)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(description="PDF file name, relative to the index file's folder.")
    title: str = Field(min_length=1, description="The endorsement's title as printed.")
    form: str = Field(min_length=1, description="The policy form (index.yaml id) it amends.")
    corrections: tuple[ChangeCorrection, ...] = Field(
        (), description="Changes the team corrects where the reader gets one wrong, by number."
    )


class Period(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    start: date = Field(alias="from", description="First day in force.")
    end: date = Field(alias="to", description="Last day in force.")

    @model_validator(mode="after")
    def _ordered(self) -> Period:
        if self.end < self.start:
            raise ValueError(f"the period ends ({self.end}) before it starts ({self.start})")
        return self

    def covers(self, day: date) -> bool:
        return self.start <= day <= self.end


class EndorsementOnPolicy(BaseModel):
    """An endorsement as issued on one policy: which one, and from which day."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    endorsement: str = Field(min_length=1, description="Its form number in index.yaml.")
    effective: date = Field(description="The day it takes effect (mid-term ones included).")


class IssuedPolicy(BaseModel):
    """policies/issued/NUMBER.yaml: one policyholder's policy as issued."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    number: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", description="Policy number.")
    form: str = Field(min_length=1, description="The policy form it is on (index.yaml id).")
    holder: str | None = Field(None, description="The policyholder, as the declarations name them.")
    period: Period = Field(description="The period of insurance: `from` and `to`.")
    declarations: str | None = Field(
        None,
        description="The schedule file in policies/schedules/ with its limits and deductibles; "
        "left out: the form's own schedule in index.yaml.",
    )
    endorsements: tuple[EndorsementOnPolicy, ...] = ()

    def in_force_on(self, day: date) -> tuple[EndorsementOnPolicy, ...]:
        """The endorsements effective on `day`, in the order the policy lists them."""
        return tuple(e for e in self.endorsements if e.effective <= day)


def issued_dir(policies_root: Path) -> Path:
    return policies_root / "issued"


def load_issued(policies_root: Path) -> dict[str, IssuedPolicy]:
    """Every issued policy under policies/issued/, by number; a file whose name is not its
    number is refused, so a claim's policy_number finds one file only, and a link leading out
    of the policies folder is refused (OutsidePolicies)."""
    folder = issued_dir(policies_root)
    out: dict[str, IssuedPolicy] = {}
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        inside(policies_root, path.relative_to(policies_root), "issued policy")  # no link out
        policy = model_from_yaml(path, IssuedPolicy, "issued policy")
        if policy.number != path.stem:
            raise ConfigError(f"{path}: number {policy.number!r} is not the file's name")
        out[policy.number] = policy
    return out
