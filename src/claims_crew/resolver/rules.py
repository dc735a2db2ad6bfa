"""The rules themselves: resolve() tries them in order and records each in the trail.

The order, and why agreement alone is not enough, is in the package docstring
(claims_crew.resolver). policy_checks() is the first rule run on its own: the pipeline calls it
before asking any model, so a claim under an unusable policy costs no model call.
"""

from __future__ import annotations

from claims_crew.models import Claim, ClaimFile, ParseFailure
from claims_crew.resolver.abstain import abstained
from claims_crew.resolver.case import Case, PolicyView
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.evidence import review_side, tool_sourced
from claims_crew.resolver.fact_sources import check_facts
from claims_crew.resolver.facts import OpenFacts, fact_problems
from claims_crew.resolver.gates import gated_or
from claims_crew.resolver.resolution import FactCheck, Resolution, SideReview, Trail
from claims_crew.vocabulary import ABSTENTION, FACT_FIELDS, SIDES, ReasonCode, Side


def _checks(case: Case, config: ResolutionConfig, trail: Trail) -> list[ReasonCode]:
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
    if not codes:
        trail.add(
            "checks", False, "both answers parsed and allowed; policy in force on the loss date"
        )
    return list(dict.fromkeys(codes))


def _abstention_problem(claim: Claim) -> str | None:
    """An abstention says why; an answer does not also abstain. Either way it is not readable."""
    if claim.answer == ABSTENTION and claim.abstain_reason is None:
        return f"answers {ABSTENTION} without an abstain_reason"
    if claim.answer != ABSTENTION and claim.abstain_reason is not None:
        return f"answers {claim.answer} but also abstains ({claim.abstain_reason})"
    return None


def _policy_problems(claim_file: ClaimFile, view: PolicyView) -> list[tuple[ReasonCode, str]]:
    if view.unreadable is not None:
        return [("policy_unreadable", f"policy {view.policy_id}: {view.unreadable}")]
    if not view.found:
        return [("policy_not_found", f"policy {view.policy_id} is not in the library")]
    if not view.in_force_on(claim_file.date_of_loss):
        return [
            (
                "policy_not_in_force",
                f"policy {view.policy_id} runs {view.in_force_from}..{view.in_force_to or 'open'}"
                f"; loss on {claim_file.date_of_loss}",
            )
        ]
    return []


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
    return Resolution(
        outcome="ESCALATED",
        rule="checks",
        reason="the case cannot be decided by rules: " + "; ".join(d for _, d in problems),
        reason_codes=[c for c, _ in problems],
        question="The claim's policy cannot be used: which policy applies, and is it covered?",
        trail=trail.steps,
        config_sha256=config.digest(),
    )


def resolve(case: Case, config: ResolutionConfig) -> Resolution:
    """Decide a case by the rules, in the order the package docstring lists; the resolution
    keeps each intake fact's check, whichever rule decided."""
    facts = check_facts(case)
    return _resolve(case, config, facts).model_copy(update={"facts": facts})


def _resolve(case: Case, config: ResolutionConfig, facts: list[FactCheck]) -> Resolution:
    trail = Trail()
    base = {"config_sha256": config.digest()}

    failed = _checks(case, config, trail)
    if failed:
        # Already a person's to decide: there is nothing for the gates to hold back.
        return Resolution(
            outcome="ESCALATED",
            rule="checks",
            reason="the case cannot be decided by rules: " + ", ".join(failed),
            reason_codes=failed,
            question="An answer or the policy could not be used: is this claim covered?",
            trail=trail.steps,
            **base,
        )
    policy, fraud = case.policy, case.fraud
    assert isinstance(policy, Claim) and isinstance(fraud, Claim)

    sides: dict[Side, SideReview] = {
        side: review_side(side, claim, case.view, tool_sourced(case.ledger, side), config)
        for side, claim in zip(SIDES, (policy, fraud), strict=True)
    }
    for side, review in sides.items():
        problems: list[ReasonCode] = [c for c in review.reason_codes if c != "abstained"]
        if review.holds:
            trail.add("reread", False, f"{side}: every cited clause re-read and verified")
        elif not problems:
            # An abstaining side is not refuted by the re-read: it has no answer to support.
            cited = "its cited clauses re-read and verified" if review.clauses else "cites nothing"
            trail.add("reread", False, f"{side}: abstains ({review.abstain_reason}); {cited}")
        for problem in problems:
            trail.add("reread", True, f"{side}: {_describe(review, problem)}", problem)
    holding = [s for s in SIDES if sides[s].holds]
    base_sides = {"sides": sides, **base}

    abstaining = [s for s in SIDES if sides[s].answer == ABSTENTION]
    if abstaining and (config.abstention.escalate_when == "either" or len(abstaining) == 2):
        return abstained(case, trail, sides, abstaining, facts, config.digest())
    if abstaining:
        [quiet] = abstaining
        trail.add(
            "abstain",
            False,
            f"{quiet} cannot tell ({sides[quiet].abstain_reason}); the other side may still "
            "win alone (abstention.escalate_when: both)",
        )
    else:
        trail.add("abstain", False, "neither agent abstains")

    if policy.answer == fraud.answer:
        high = max(policy.confidence, fraud.confidence)
        gap = abs(policy.confidence - fraud.confidence)
        agree_codes: list[ReasonCode] = []
        if high < config.accept.min_confidence:
            agree_codes.append("low_confidence")
        if gap > config.accept.max_confidence_gap:
            agree_codes.append("confidence_gap")
        if not agree_codes and len(holding) == 2:
            trail.add("agree", True, f"both answer {policy.answer}; evidence holds on both sides")
            return gated_or(
                case,
                config,
                trail,
                Resolution(
                    outcome="ACCEPTED",
                    rule="agree",
                    answer=policy.answer,
                    reason=f"both agents answer {policy.answer} (confidence {high:.2f}, "
                    f"gap {gap:.2f}) and both sides' evidence re-reads",
                    trail=trail.steps,
                    **base_sides,
                ),
            )
        for code in agree_codes:
            trail.add(
                "agree",
                False,
                f"same answer, but {_confidence_detail(code, high, gap, config)}",
                code,
            )
        if len(holding) < 2 and not agree_codes:
            trail.add("agree", False, "same answer, but not both sides' evidence holds")
        if len(holding) == 2:
            # Same answer and sound evidence, but the agents are not sure enough between them.
            return Resolution(
                outcome="ESCALATED",
                rule="agree",
                reason=f"both answer {policy.answer} but "
                + "; ".join(_confidence_detail(c, high, gap, config) for c in agree_codes),
                reason_codes=agree_codes,
                question=f"Both agents lean to {policy.answer} without enough confidence: "
                "is that right?",
                trail=trail.steps,
                **base_sides,
            )
    else:
        trail.add("agree", False, f"answers differ: policy {policy.answer}, fraud {fraud.answer}")

    if len(holding) == 1:
        winner = holding[0]
        loser: Side = "fraud" if winner == "policy" else "policy"
        sourced = "tool-sourced" if sides[winner].source_checked else "re-read only"
        confidence = sides[winner].confidence or 0.0
        if confidence < config.prefer_floor:
            # One side alone is held to the floor two agreeing sides would need: a side that
            # holds only because the other's evidence failed is no surer for it.
            floor = f"{confidence:.2f} is below {config.prefer_floor:.2f}"
            trail.add(
                "prefer",
                False,
                f"only {winner}'s evidence holds, but its confidence {floor}",
                "low_confidence",
            )
            return Resolution(
                outcome="ESCALATED",
                rule="prefer",
                reason=f"only {winner}'s evidence holds up on re-reading, but its confidence "
                f"{floor}; {loser}'s fails: " + ", ".join(sides[loser].reason_codes),
                reason_codes=[*sides[loser].reason_codes, "low_confidence"],
                question=f"Only {winner}'s evidence holds, and it answers {sides[winner].answer} "
                f"with confidence {confidence:.2f}: is that right?",
                would_have_been="PREFERRED",
                would_have_won=winner,
                trail=trail.steps,
                **base_sides,
            )
        trail.add(
            "prefer",
            True,
            f"only {winner}'s evidence holds ({sourced}); {loser}: "
            + ", ".join(sides[loser].reason_codes),
        )
        return gated_or(
            case,
            config,
            trail,
            Resolution(
                outcome="PREFERRED",
                rule="prefer",
                winner=winner,
                answer=sides[winner].answer,
                reason=f"only {winner}'s evidence holds up on re-reading ({sourced}); "
                f"{loser}'s fails: " + ", ".join(sides[loser].reason_codes),
                reason_codes=list(sides[loser].reason_codes),
                trail=trail.steps,
                **base_sides,
            ),
        )

    if not holding:
        codes = list(dict.fromkeys(c for s in SIDES for c in sides[s].reason_codes))
        trail.add("prefer", False, "neither side's evidence holds")
        trail.add(
            "neither", True, "no side's evidence survives the re-read", codes[0] if codes else None
        )
        return Resolution(
            outcome="ESCALATED",
            rule="neither",
            reason="neither side's evidence holds up on re-reading: " + ", ".join(codes),
            reason_codes=codes,
            question="Neither agent's cited clauses hold up: is this claim covered, and under "
            "which clause?",
            trail=trail.steps,
            **base_sides,
        )

    trail.add("prefer", False, "both sides' evidence holds")
    # Which facts an answer rests on is the agent's own account of itself, so it only orders
    # the question: every fact intake left open or that contradicts the claim file counts.
    relied = list(dict.fromkeys([*policy.facts_relied_on, *fraud.facts_relied_on, *FACT_FIELDS]))
    open_facts = fact_problems(case, relied, facts)
    if open_facts.any:
        unverified: list[ReasonCode] = ["fact_unverified"] if open_facts.unverified else []
        trail.add(
            "conflict",
            True,
            "facts of the claim are open: " + "; ".join(open_facts.questions()),
            "needs_more_evidence",
        )
        return Resolution(
            outcome="ESCALATED",
            rule="conflict",
            reason="both sides' evidence holds, but the answers differ while facts are "
            + _open_detail(open_facts),
            reason_codes=["needs_more_evidence", *unverified],
            question=" ".join(open_facts.questions()),
            missing_facts=open_facts.missing,
            trail=trail.steps,
            **base_sides,
        )
    trail.add("conflict", False, "every fact either side relies on is known and undisputed")
    trail.add("dispute", True, "same facts, sound evidence, different reading of the words")
    return gated_or(
        case,
        config,
        trail,
        Resolution(
            outcome="ADJUDICATION_REQUIRED",
            rule="dispute",
            reason="both sides' evidence holds and the facts are agreed; they read the clauses "
            "differently",
            question="Which reading do the clauses support: "
            f"policy ({policy.answer}) or fraud ({fraud.answer})?",
            trail=trail.steps,
            **base_sides,
        ),
    )


def _open_detail(open_facts: OpenFacts) -> str:
    parts = []
    if open_facts.unknown:
        parts.append("unknown: " + ", ".join(open_facts.unknown))
    if open_facts.unverified:
        parts.append(
            "not borne out by the claim: " + ", ".join(c.name for c in open_facts.unverified)
        )
    if open_facts.disputed:
        parts.append("disputed")
    return "; ".join(parts)


def _confidence_detail(code: ReasonCode, high: float, gap: float, config: ResolutionConfig) -> str:
    if code == "low_confidence":
        return f"the higher confidence {high:.2f} is below {config.accept.min_confidence:.2f}"
    return f"the confidences are {gap:.2f} apart, over {config.accept.max_confidence_gap:.2f}"


def _describe(review: SideReview, code: ReasonCode) -> str:
    bad = {
        "clause_not_found": [c.cited for c in review.clauses if c.status == "clause_not_found"],
        "quote_mismatch": [c.cited for c in review.clauses if c.status == "quote_mismatch"],
    }.get(code)
    if code == "no_evidence":
        return "cites no clause"
    if code == "kind_mismatch":
        return f"no verified clause is of a kind that supports {review.answer}"
    return f"{code.replace('_', ' ')}: {', '.join(bad or [])}"
