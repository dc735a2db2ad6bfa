"""The facts a conflict turns on: which are unknown, unverified, or contradict the claim file.

The conflict rule asks a person about them when the agents disagree, and the abstain rule when
an agent says it cannot tell for want of a fact. Either way the question names the fact. A fact
whose source does not check out (fact_sources.py) counts as unknown here, and its question says
what intake read and why it was not trusted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from claims_crew.models import ParseFailure
from claims_crew.records.resolution import FactCheck
from claims_crew.resolver.case import Case
from claims_crew.resolver.fact_sources import same_as_file
from claims_crew.vocabulary import FACT_CLAIM_FIELDS, FactName

FACT_QUESTIONS: dict[FactName, str] = {
    "loss_type": "What kind of loss is it?",
    "cause": "What caused the loss?",
    "date_of_loss": "When did the loss happen?",
    "damage_start_date": "When did the damage start?",
    "amount_claimed": "How much is claimed?",
}


@dataclass(frozen=True)
class OpenFacts:
    """Of the facts asked about: what a person must settle before the rules can."""

    unknown: list[FactName] = field(default_factory=list)  # null, or intake's answer unreadable
    unverified: list[FactCheck] = field(default_factory=list)  # stated, but not by the claim
    disputed: list[str] = field(default_factory=list)  # "name: what the file and intake say"

    @property
    def any(self) -> bool:
        return bool(self.unknown or self.unverified or self.disputed)

    @property
    def missing(self) -> list[FactName]:
        names = [*self.unknown, *(c.name for c in self.unverified)]
        disputed: list[FactName] = [
            n for n in _NAMES if any(d.startswith(n + ":") for d in self.disputed)
        ]
        return list(dict.fromkeys([*names, *disputed]))

    def questions(self) -> list[str]:
        return (
            [f"{name}: {FACT_QUESTIONS[name]}" for name in self.unknown]
            + [
                f"{c.name}: {FACT_QUESTIONS[c.name]} (intake read {c.value}, but {c.problem})"
                for c in self.unverified
            ]
            + self.disputed
        )


_NAMES: tuple[FactName, ...] = tuple(FACT_QUESTIONS)


def fact_problems(case: Case, names: Sequence[FactName], checks: Sequence[FactCheck]) -> OpenFacts:
    """Of the named facts: which intake left unknown, which the claim does not bear out (from
    `checks`, fact_sources.check_facts), and which contradict the claim file."""
    facts = case.facts
    if isinstance(facts, ParseFailure):
        return OpenFacts(unknown=list(names))
    disputed = []
    for name, field_name in FACT_CLAIM_FIELDS.items():
        value, on_file = getattr(facts, name), getattr(case.claim_file, field_name)
        if name in names and value is not None and not same_as_file(value, on_file):
            disputed.append(f"{name}: the claim file says {on_file}, intake read {value}")
    contradicted = {d.split(":", 1)[0] for d in disputed}
    by_name = {c.name: c for c in checks}
    unverified = [
        by_name[n]
        for n in names
        if n in by_name and by_name[n].status == "unverified" and n not in contradicted
    ]
    unknown = [n for n in names if getattr(facts, n) is None]
    return OpenFacts(unknown=unknown, unverified=unverified, disputed=disputed)
