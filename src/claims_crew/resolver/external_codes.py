"""config/reason_codes.yaml: the project's answers and reason codes in a team's own codes.

A claim system has its own codes for why a claim was paid, refused or referred. The mapping
file names one for each answer a decision can carry (a denial per kind of clause it rests on:
an exclusion, a condition, a limit) and one for each reason code a claim can be sent to a person
with; `config check` reports any code without one. Views, `--json` and the report show the
external code beside the internal one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from claims_crew import settings
from claims_crew.records.resolution import Resolution
from claims_crew.resolver.deciding import deciding_checks, winning_sides
from claims_crew.settings.yaml_files import model_from_yaml
from claims_crew.vocabulary import HUMAN_DECISIONS, PAID_ANSWER, REASON_CODES

FILE_NAME = "reason_codes.yaml"
# A denial may be mapped by the kind of clause it rests on: "not_covered.exclusion".
DENIAL_KINDS: tuple[str, ...] = ("exclusion", "condition", "limit")


class ExternalCodes(BaseModel):
    """The whole of config/reason_codes.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    decisions: dict[str, str] = Field(
        default_factory=dict, description="Answer (or answer.kind for a denial) → code."
    )
    reason_codes: dict[str, str] = Field(default_factory=dict, description="Reason code → code.")

    def for_answer(self, answer: str | None, kind: str | None = None) -> str | None:
        if answer is None:
            return None
        if kind is not None and (code := self.decisions.get(f"{answer}.{kind}")):
            return code
        return self.decisions.get(answer)

    def for_reasons(self, codes: Sequence[str]) -> list[str]:
        """Each reason code's external code, in order, once each; unmapped ones left out."""
        return list(dict.fromkeys(self.reason_codes[c] for c in codes if c in self.reason_codes))

    def of_resolution(self, resolution: Resolution) -> str | None:
        """The external code of what the rules decided: the answer's for a decision (a denial's
        by the kind of the clause it rests on), else the first reason code's."""
        if resolution.decided:
            return self.for_answer(resolution.answer, _resting_kind(resolution))
        return next(iter(self.for_reasons(resolution.reason_codes)), None)


def _resting_kind(resolution: Resolution) -> str | None:
    """The kind of the first deciding clause that has one, as a letter for the decision codes
    it; None for covered, whose code does not depend on it."""
    if resolution.answer == PAID_ANSWER:
        return None
    checks = deciding_checks(resolution, winning_sides(resolution))
    return next((c.kind for c in checks if c.kind), None)


def required_keys(answers: Sequence[str]) -> tuple[list[str], list[str]]:
    """What the mapping must name: every definite answer and a person's decisions; every
    reason code."""
    decisions = list(dict.fromkeys([*answers, *HUMAN_DECISIONS]))
    return decisions, list(REASON_CODES)


def gaps(codes: ExternalCodes, answers: Sequence[str]) -> tuple[list[str], list[str]]:
    decisions, reasons = required_keys(answers)
    return (
        [d for d in decisions if d not in codes.decisions],
        [r for r in reasons if r not in codes.reason_codes],
    )


def load_external_codes(config_dir: Path | None = None) -> ExternalCodes | None:
    """config/reason_codes.yaml, validated; None when the project has none (no codes shown)."""
    path = (config_dir if config_dir is not None else settings.config_dir()) / FILE_NAME
    try:
        return model_from_yaml(path, ExternalCodes, "file")
    except FileNotFoundError:
        return None
