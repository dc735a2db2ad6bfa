"""Level 1, targeted evidence: intake asked once about the facts a conflict turns on.

The rules name the facts (resolver/targeted.py); this runs the claim's targeted_question_task
on them and hands the raw answer back to the resolver, which checks every quote in code. The
call runs under the claim's tool ledger, so its model calls and tokens are counted under the
task's own name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from claims_crew.crew.crew import ClaimsCrew
from claims_crew.errors import ClaimsCrewError
from claims_crew.models import parse_targeted
from claims_crew.resolver import Case, Resolution
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.targeted import apply_answer, facts_to_ask, question_for
from claims_crew.run.levels.state import ReviewState
from claims_crew.settings.redact import error_text
from claims_crew.vocabulary import TARGETED_TASK, FactName, Stage


def ask_for_evidence(
    claims_crew: ClaimsCrew,
    inputs: dict[str, Any],
    case: Case,
    config: ResolutionConfig,
    resolution: Resolution,
    facts: Sequence[FactName],
) -> tuple[str, Case, Resolution]:
    """Ask once and apply the checked answer: (raw answer, case, resolution). A model that fails
    to answer leaves the facts open: the claim is escalated as it was, the failure recorded."""
    question = question_for(facts)
    try:
        output = claims_crew.targeted_crew().kickoff(inputs={**inputs, "question": question})
        raw = str(getattr(output, "raw", "") or "")
    except ClaimsCrewError:
        raise
    except Exception as exc:
        raw = f"the intake agent failed: {error_text(exc)}"
    case, decided = apply_answer(
        case, config, resolution, facts, question, raw, parse_targeted(raw)
    )
    return raw, case, decided


class TargetedEvidence:
    """Applies when the agents' answers conflict over facts intake left open or unverified, and
    resolution.yaml's targeted_evidence is on."""

    stage: Stage = "targeted_evidence"

    def applies(self, state: ReviewState) -> bool:
        return bool(facts_to_ask(state.resolution, state.rules))

    def run(self, state: ReviewState) -> None:
        asked = facts_to_ask(state.resolution, state.rules)
        raw, state.case, state.resolution = ask_for_evidence(
            state.crew, state.inputs, state.case, state.rules, state.resolution, asked
        )
        state.raw[TARGETED_TASK] = raw
