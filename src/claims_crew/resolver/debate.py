"""One bounded debate round before the adjudicator, and what the rules make of it.

A dispute (both sides' evidence holds, the facts are agreed, the readings differ) may first get
one round, when resolution.yaml's `debate.rounds` is 1: each side is shown the other's claim
once and may revise its answer and evidence. Then the rules run again on the case with the
revised answers, re-reading every clause cited as always: the claim may now agree, one side may
no longer hold, or the dispute remains and goes to the adjudicator. There is never a second
round, and a side whose second answer cannot be read stands on its first.

Pure like the rest of the resolver: its level asks (run/levels/debate.py) and re-reads the clauses
newly cited (reread.py) before handing the answers in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace

from claims_crew.models import Claim, ParseFailure
from claims_crew.records.resolution import DebateRound, Resolution
from claims_crew.resolver.case import Case, PolicyView
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.rules import resolve
from claims_crew.vocabulary import SIDES, Side


def wants_debate(resolution: Resolution, config: ResolutionConfig) -> bool:
    """A round is held for a dispute, when the config asks for one and none was held yet."""
    return (
        config.debate.rounds > 0
        and resolution.debate is None
        and resolution.outcome == "ADJUDICATION_REQUIRED"
        and resolution.rule == "dispute"
    )


def other_claim(case: Case, side: Side) -> str:
    """What `side` is shown: the other side's claim as it answered, and nothing of the code's."""
    other: Side = "fraud" if side == "policy" else "policy"
    claim = case.claim(other)
    assert isinstance(claim, Claim), "a dispute has two readable claims"
    shown = claim.model_dump(mode="json", exclude={"source_checked"})
    return f"The {other} reviewer's claim:\n{json.dumps(shown, indent=2, ensure_ascii=False)}"


def apply_round(
    case: Case,
    config: ResolutionConfig,
    before: Resolution,
    shown: Mapping[Side, str],
    raw: Mapping[Side, str],
    revised: Mapping[Side, Claim | ParseFailure],
    view: PolicyView,
) -> tuple[Case, Resolution]:
    """The case with each side's readable second answer (re-read in `view`), resolved again;
    the resolution carries the round (Resolution.debate)."""
    standing = {
        side: answer if isinstance(answer, Claim) else case.claim(side)
        for side, answer in revised.items()
    }
    changed: list[Side] = []
    for side in SIDES:
        first, second = case.claim(side), standing.get(side)
        if isinstance(first, Claim) and isinstance(second, Claim) and first.answer != second.answer:
            changed.append(side)
    case = replace(
        case,
        policy=standing.get("policy", case.policy),
        fraud=standing.get("fraud", case.fraud),
        view=view,
    )
    after = resolve(case, config)
    held = DebateRound(
        shown=dict(shown), raw=dict(raw), revised=dict(revised), changed=changed, before=before
    )
    return case, after.with_debate(held)
