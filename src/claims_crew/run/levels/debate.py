"""Level 2, the debate round (off by default): each reviewer shown the other's claim once,
asked to keep or revise.

The rules decide whether a round is held and what it means (resolver/debate.py); this runs the
two rebuttal tasks, parses their answers as the first ones were (source_checked from the tool
ledger, over both of the side's tasks), and re-reads every clause now cited. It runs under the
claim's tool ledger, so each task's calls and tokens are counted under its own name.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from claims_crew.crew.crew import ClaimsCrew
from claims_crew.crew.ledger import ToolLedger, source_checked
from claims_crew.errors import ClaimsCrewError
from claims_crew.models import Claim, ParseFailure, parse_claim
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver import Case, Resolution, cited_clauses
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.debate import apply_round, other_claim, wants_debate
from claims_crew.resolver.reread import policy_view
from claims_crew.run.levels.state import ReviewState
from claims_crew.settings.redact import error_text
from claims_crew.vocabulary import REBUTTAL_TASK_OF, SIDES, TASK_OF, Side, Stage


def hold_round(
    claims_crew: ClaimsCrew,
    inputs: dict[str, Any],
    case: Case,
    config: ResolutionConfig,
    resolution: Resolution,
    library: PolicyLibrary,
    ledger: ToolLedger,
) -> tuple[dict[Side, str], Case, Resolution]:
    """Ask each side once, then resolve again: (raw answers, case, resolution). A side whose
    model fails to answer stands on its first claim, the failure recorded as its answer."""
    shown = {side: other_claim(case, side) for side in SIDES}
    raw: dict[Side, str] = {}
    for side in SIDES:
        try:
            crew = claims_crew.rebuttal_crew(side)
            output = crew.kickoff(inputs={**inputs, "other_claim": shown[side]})
            raw[side] = str(getattr(output, "raw", "") or "")
        except ClaimsCrewError:
            raise
        except Exception as exc:
            raw[side] = f"the {side} agent failed: {error_text(exc)}"
    ledger.settle()  # the rebuttals' tool calls, before the ledger is read
    ids = {t.name: str(t.id) for t in claims_crew.all_tasks()}
    revised: dict[Side, Claim | ParseFailure] = {}
    for side in SIDES:
        parsed = parse_claim(raw[side], config.allowed_answers)
        if isinstance(parsed, Claim):
            returned = ledger.returned_to(ids[TASK_OF[side]])
            returned |= ledger.returned_to(ids[REBUTTAL_TASK_OF[side]])
            parsed.source_checked = source_checked(parsed, returned)
        revised[side] = parsed
    standing = [a if isinstance(a, Claim) else case.claim(s) for s, a in revised.items()]
    view = policy_view(library, case.view.policy_id, cited_clauses(*standing), case.claim_file)
    case = replace(case, ledger=ledger.entries)
    case, decided = apply_round(case, config, resolution, shown, raw, revised, view)
    return raw, case, decided


class Debate:
    """Applies when resolution.yaml's debate is on and the rules leave both sides standing
    against each other (resolver/debate.py: wants_debate)."""

    stage: Stage = "debate"

    def applies(self, state: ReviewState) -> bool:
        return wants_debate(state.resolution, state.rules)

    def run(self, state: ReviewState) -> None:
        said, state.case, state.resolution = hold_round(
            state.crew,
            state.inputs,
            state.case,
            state.rules,
            state.resolution,
            state.library,
            state.ledger,
        )
        state.raw.update({REBUTTAL_TASK_OF[side]: text for side, text in said.items()})
