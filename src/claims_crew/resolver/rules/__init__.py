"""The rules as a list: resolve() tries them in order, and the first that decides, decides.

Each rule is a small pure function of the Context (the case, the config, each intake fact's
check, the trail so far) that returns a Resolution or None to pass to the next, adding its step
to the trail either way. An outcome that would stand without a person (ACCEPTED, PREFERRED, or
ADJUDICATION_REQUIRED for the adjudicator) then goes through the gates (gates.py), the last
rule, which the adjudicator's answer goes through too.

The order, and why agreement alone is not enough, is in the package docstring
(claims_crew.resolver); a test holds ORDER to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from claims_crew.records.resolution import Resolution
from claims_crew.resolver.case import Case
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.gates import flag_instructions, flag_unread, gated_or
from claims_crew.resolver.rules.abstain import abstain
from claims_crew.resolver.rules.agree import agree
from claims_crew.resolver.rules.checks import checks, policy_checks
from claims_crew.resolver.rules.conflict import conflict
from claims_crew.resolver.rules.context import Context
from claims_crew.resolver.rules.dispute import dispute
from claims_crew.resolver.rules.neither import neither
from claims_crew.resolver.rules.prefer import prefer
from claims_crew.resolver.rules.reread import reread
from claims_crew.vocabulary import RuleName

__all__ = ["ORDER", "RULES", "Context", "Rule", "policy_checks", "resolve"]


class Rule(NamedTuple):
    name: RuleName
    decide: Callable[[Context], Resolution | None]


RULES: tuple[Rule, ...] = (
    Rule("checks", checks),
    Rule("reread", reread),
    Rule("abstain", abstain),
    Rule("agree", agree),
    Rule("prefer", prefer),
    Rule("conflict", conflict),
    Rule("dispute", dispute),
    Rule("neither", neither),
)

# Every rule in the order it runs: the gates come last, on what the rules above let stand.
ORDER: tuple[RuleName, ...] = (*(rule.name for rule in RULES), "gates")


def resolve(case: Case, config: ResolutionConfig) -> Resolution:
    """Decide a case by the rules, in ORDER; the resolution keeps each intake fact's check,
    whichever rule decided."""
    context = Context.of(case, config)
    decided = _first_decision(context)
    if decided.outcome == "ESCALATED":
        # Already a person's to decide: nothing for the gates to hold back, but the person is
        # told of words in the claim that address its reviewer, and of parts intake could not
        # read, as a held-back decision says.
        return flag_unread(case, flag_instructions(case, decided))
    return gated_or(case, config, context.trail, decided)


def _first_decision(context: Context) -> Resolution:
    for rule in RULES:
        decided = rule.decide(context)
        if decided is not None:
            return decided
    # Unreachable: after agree and prefer, both sides hold (conflict, dispute) or none does.
    raise AssertionError("no rule decided the case")
