"""config/desk.yaml: how new escalations are assigned, and which decisions need four eyes.

A decision that needs four eyes is first a proposal; a different reviewer confirms it (and only
then does it decide the claim) or returns it. Without the file, escalations are assigned by
line, then load, and no decision needs a second reviewer: the desk works as it did before.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claims_crew import paths
from claims_crew.desk.assignment import STEPS, Step
from claims_crew.desk.authority import PAYS
from claims_crew.errors import ConfigError, validation_problems
from claims_crew.vocabulary import HumanDecision

FILE_NAME = "desk.yaml"


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


class DeskRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    assignment: Assignment = Field(default_factory=Assignment)
    four_eyes: FourEyes = Field(default_factory=FourEyes)


def parse_desk(data: Any, where: str) -> DeskRules:
    """The rules from the file's parsed YAML; a ConfigError naming each key at fault."""
    try:
        return DeskRules.model_validate(data or {})
    except ValidationError as exc:
        raise ConfigError(f"{where}: " + "; ".join(validation_problems(exc, "desk"))) from exc


def load_desk(config_dir: Path | None = None) -> DeskRules:
    """config/desk.yaml, validated; a missing file gives the defaults."""
    path = (config_dir if config_dir is not None else paths.config_dir()) / FILE_NAME
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return DeskRules()
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    return parse_desk(data, str(path))
