"""Level 3, the adjudicator: asked once, only when the rules find an interpretation dispute.

It sees both answers, the clause texts the code re-read and the agreed facts, and must return a
side (or escalate), a reason and the clauses it rests on. resolver.apply_adjudication checks that
answer in code; nothing it says is taken on trust.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claims_crew.crew.crew import ClaimsCrew
from claims_crew.errors import ClaimsCrewError
from claims_crew.llms.select import LLMFactory, default_llm_factory
from claims_crew.models import Claim, IntakeFacts, parse_adjudication
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver import (
    AdjudicationCheck,
    Case,
    Resolution,
    apply_adjudication,
)
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.run.levels.state import ReviewState
from claims_crew.settings.redact import error_text
from claims_crew.vocabulary import ADJUDICATE_TASK, SIDES, Stage


def dispute_text(case: Case, resolution: Resolution) -> str:
    """What the adjudicator is shown: the facts, each side's answer and its re-read clauses, and
    the exclusions the claim's words fit."""
    lines = ["Facts agreed by both reviewers (from intake):"]
    if isinstance(case.facts, IntakeFacts):
        for name, value in case.facts.model_dump(exclude={"unknowns", "sources"}).items():
            lines.append(f"  {name}: {'unknown' if value is None else value}")
    for side in SIDES:
        claim = case.claim(side)
        review = resolution.sides.get(side)
        if not isinstance(claim, Claim) or review is None:
            continue
        lines.append("")
        lines.append(
            f"The {side} reviewer answers {claim.answer} (confidence {claim.confidence:.2f})."
        )
        if claim.rationale:
            lines.append(f"  Its reasoning: {claim.rationale}")
        for check in review.clauses:
            # The words are those in force; an endorsement that changed them is named.
            amended = f" {check.amended_by}" if check.amended_by else ""
            lines.append(f"  Clause {check.clause_id} {check.title or ''} [{check.kind}]{amended}:")
            lines.extend(f"    {line}" for line in (check.text or "").splitlines())
    if case.exclusions:
        lines.append("")
        lines.append("Exclusions of the policy that the claim's words fit (found by a search):")
        for fit in case.exclusions:
            added = f" {fit.clause.amended.cited()}" if fit.clause.amended else ""
            lines.append(f"  Clause {fit.clause.id} {fit.clause.title} [{fit.clause.kind}]{added}:")
            lines.extend(f"    {line}" for line in fit.clause.text.splitlines())
    lines.append("")
    lines.append(
        "Choose policy or fraud, whichever reading the clause words support, or escalate. Give "
        "the reason, and as evidence the ids of the clauses above that your choice rests on."
    )
    return "\n".join(lines)


def ask(claims_crew: ClaimsCrew, inputs: dict[str, Any], case: Case, resolution: Resolution) -> str:
    """Run the claim's adjudicate_task once and return the model's raw answer. The pipeline
    calls this only at the dispute rule; the model-call count in the record shows it."""
    crew = claims_crew.adjudication_crew()
    output = crew.kickoff(inputs={**inputs, "dispute": dispute_text(case, resolution)})
    return str(getattr(output, "raw", "") or "")


def adjudicate(
    claims_crew: ClaimsCrew,
    inputs: dict[str, Any],
    case: Case,
    config: ResolutionConfig,
    resolution: Resolution,
) -> tuple[str, Resolution, AdjudicationCheck]:
    """Ask once and check the answer. A model that fails to answer counts as an invalid answer:
    the claim goes to a person with the failure recorded, rather than being decided without it."""
    try:
        raw = ask(claims_crew, inputs, case, resolution)
    except ClaimsCrewError:
        raise
    except Exception as exc:
        raw = f"the adjudicator failed: {error_text(exc)}"
    decided, check = apply_adjudication(case, config, resolution, parse_adjudication(raw))
    return raw, decided, check


def adjudicate_case(
    case: Case,
    config: ResolutionConfig,
    resolution: Resolution,
    library: PolicyLibrary,
    llm_for: LLMFactory | None = None,
    config_dir: Path | None = None,
) -> tuple[Resolution, AdjudicationCheck]:
    """Ask the adjudicator about one dispute from a case file (ADJUDICATOR_MODEL, else MODEL,
    else the local model) and check its answer."""
    claims_crew = ClaimsCrew(
        case.view.policy_id, llm_for or default_llm_factory(), library, config_dir
    )
    inputs = {
        "claim_id": case.claim_file.claim_id,
        "policy_id": case.view.policy_id,
        "claim_text": case.claim_file.description,
        "allowed_answers": ", ".join(config.allowed_answers),
    }
    _, decided, check = adjudicate(claims_crew, inputs, case, config, resolution)
    return decided, check


class Adjudicator:
    """Applies to an interpretation dispute (ADJUDICATION_REQUIRED) while resolution.yaml's
    adjudication is enabled; with it off, the dispute goes to a person as it stands."""

    stage: Stage = "adjudicator"

    def applies(self, state: ReviewState) -> bool:
        adjudicating = state.rules.adjudication.enabled
        return state.resolution.outcome == "ADJUDICATION_REQUIRED" and adjudicating

    def run(self, state: ReviewState) -> None:
        raw, state.resolution, state.adjudication = adjudicate(
            state.crew, state.inputs, state.case, state.rules, state.resolution
        )
        state.raw[ADJUDICATE_TASK] = raw
