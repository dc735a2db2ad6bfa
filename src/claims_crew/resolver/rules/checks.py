"""The checks rule: every answer parsed and allowed, the policy known, readable and in force.

policy_checks() is its policy half run on its own: the pipeline calls it before asking any
model, so a claim under an unusable policy costs no model call.
"""

from __future__ import annotations

from claims_crew.models import Claim, ClaimFile, IntakeFacts, ParseFailure
from claims_crew.records.resolution import Resolution, Trail
from claims_crew.resolver.case import Case, PolicyView
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import ABSTENTION, ReasonCode


def checks(context: Context) -> Resolution | None:
    """ESCALATED when an answer or the policy cannot be used; else passes."""
    failed = _failed(context.case, context.config, context.trail)
    if not failed:
        return None
    # Already a person's to decide: there is nothing for the gates to hold back, and no side
    # to review.
    return Resolution.escalated(
        "checks",
        reason="the case cannot be decided by rules: " + ", ".join(failed),
        reason_codes=failed,
        question="An answer or the policy could not be used: is this claim covered?",
        trail=context.trail.steps,
        facts=context.facts,
        config_sha256=context.digest,
    )


def policy_checks(
    claim_file: ClaimFile, view: PolicyView, config: ResolutionConfig
) -> Resolution | None:
    """The checks that need no answer: a claim under an unusable policy is escalated before any
    model is asked about it. None when the policy is known, readable and in force."""
    problems = _policy_problems(claim_file, view)
    if not problems:
        return None
    trail = Trail()
    for code, detail in problems:
        trail.add("checks", True, detail, code)
    return Resolution.escalated(
        "checks",
        reason="the case cannot be decided by rules: " + "; ".join(d for _, d in problems),
        reason_codes=[c for c, _ in problems],
        question="The claim's policy cannot be used: which policy applies, and is it covered?",
        trail=trail.steps,
        config_sha256=config.digest(),
    )


def _failed(case: Case, config: ResolutionConfig, trail: Trail) -> list[ReasonCode]:
    codes: list[ReasonCode] = []
    for name, value in (("intake", case.facts), ("policy", case.policy), ("fraud", case.fraud)):
        if isinstance(value, ParseFailure):
            trail.add(
                "checks", True, f"{name}: could not read the answer: {value.reason}", "parse_error"
            )
            codes.append("parse_error")
        elif isinstance(value, Claim) and value.answer not in config.allowed_answers:
            trail.add(
                "checks", True, f"{name}: answer {value.answer!r} is not allowed", "parse_error"
            )
            codes.append("parse_error")
        elif isinstance(value, Claim) and (problem := _abstention_problem(value)):
            trail.add("checks", True, f"{name}: {problem}", "parse_error")
            codes.append("parse_error")
    for code, detail in _policy_problems(case.claim_file, case.view):
        trail.add("checks", True, detail, code)
        codes.append(code)
    if dropped := _dropped(case):
        trail.add("checks", False, "the model's answer was unusable in part, dropped: " + dropped)
    if not codes:
        trail.add(
            "checks", False, "both answers parsed and allowed; policy in force on the loss date"
        )
    return list(dict.fromkeys(codes))


def _dropped(case: Case) -> str:
    """What the parser dropped from each answer as meaningless, in one line; empty if nothing."""
    answers = (("intake", case.facts), ("policy", case.policy), ("fraud", case.fraud))
    return "; ".join(
        f"{name}: {', '.join(value.unusable)}"
        for name, value in answers
        if isinstance(value, Claim | IntakeFacts) and value.unusable
    )


def _abstention_problem(claim: Claim) -> str | None:
    """An abstention says why; an answer does not also abstain. Either way it is not readable."""
    if claim.answer == ABSTENTION and claim.abstain_reason is None:
        return f"answers {ABSTENTION} without an abstain_reason"
    if claim.answer != ABSTENTION and claim.abstain_reason is not None:
        return f"answers {claim.answer} but also abstains ({claim.abstain_reason})"
    return None


def _policy_problems(claim_file: ClaimFile, view: PolicyView) -> list[tuple[ReasonCode, str]]:
    # An issued policy's number is named: it, not the form, may be what is unknown or wrong.
    number = f" (policy number {claim_file.policy_number})" if claim_file.policy_number else ""
    if view.unreadable is not None:
        return [("policy_unreadable", f"policy {view.policy_id}{number}: {view.unreadable}")]
    if not view.found:
        return [("policy_not_found", f"policy {view.policy_id}{number} is not in the library")]
    if not view.in_force_on(claim_file.date_of_loss):
        return [
            (
                "policy_not_in_force",
                f"policy {view.policy_id} runs {view.in_force_from}..{view.in_force_to or 'open'}"
                f"; loss on {claim_file.date_of_loss}",
            )
        ]
    return []
