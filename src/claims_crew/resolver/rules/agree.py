"""The agree rule: the same answer from both sides, both sides' evidence holding, the agents
sure enough between them (accept.min_confidence, accept.max_confidence_gap), and, for an answer
the policy's exclusions argue against (covered), every exclusion the claim's words fit read by
one of the agents (exclusions.py).

Agreement alone is not enough: two agents that obey the same injected instruction agree
confidently. The re-read tells a made-up or misquoted clause apart; it cannot tell a real grant,
genuinely looked up, from a reading that never asked whether the claim is excluded. The
exclusion check does: the injected claim C-1047 fits exclusion 7.1, and an agreement on covered
that read no part of it goes to a person.
"""

from __future__ import annotations

from claims_crew.records.resolution import Resolution
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.exclusions import unread_detail, unread_question
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import ReasonCode


def agree(context: Context) -> Resolution | None:
    """ACCEPTED; ESCALATED when both hold but confidence falls short or a fitting exclusion went
    unread; passes when the answers differ or a side's evidence fails."""
    policy, fraud, config = context.policy, context.fraud, context.config
    if policy.answer != fraud.answer:
        context.trail.add(
            "agree", False, f"answers differ: policy {policy.answer}, fraud {fraud.answer}"
        )
        return None
    both_hold = len(context.holding) == 2
    high = max(policy.confidence, fraud.confidence)
    gap = abs(policy.confidence - fraud.confidence)
    short: list[ReasonCode] = []
    if high < config.accept.min_confidence:
        short.append("low_confidence")
    if gap > config.accept.max_confidence_gap:
        short.append("confidence_gap")
    if config.argued_against(policy.answer) and context.unread_exclusions:
        short.append("exclusion_unchecked")
    if not short and both_hold:
        context.trail.add(
            "agree", True, f"both answer {policy.answer}; evidence holds on both sides"
        )
        return context.reached(
            "ACCEPTED",
            "agree",
            answer=policy.answer,
            reason=f"both agents answer {policy.answer} (confidence {high:.2f}, "
            f"gap {gap:.2f}) and both sides' evidence re-reads",
        )
    details = [_detail(code, high, gap, context) for code in short]
    for code, detail in zip(short, details, strict=True):
        context.trail.add("agree", False, f"same answer, but {detail}", code)
    if not both_hold:
        if not short:
            context.trail.add("agree", False, "same answer, but not both sides' evidence holds")
        return None
    # Same answer and sound evidence, but not enough between them to stand without a person.
    return context.escalated(
        "agree",
        reason=f"both answer {policy.answer} but " + "; ".join(details),
        reason_codes=short,
        question=_question(short, policy.answer, context),
        would_have_been="ACCEPTED" if short == ["exclusion_unchecked"] else None,
    )


def _detail(code: ReasonCode, high: float, gap: float, context: Context) -> str:
    config: ResolutionConfig = context.config
    if code == "low_confidence":
        return f"the higher confidence {high:.2f} is below {config.accept.min_confidence:.2f}"
    if code == "confidence_gap":
        return f"the confidences are {gap:.2f} apart, over {config.accept.max_confidence_gap:.2f}"
    return unread_detail(context.unread_exclusions)


def _question(short: list[ReasonCode], answer: str, context: Context) -> str:
    asked = []
    if short != ["exclusion_unchecked"]:
        asked.append(f"Both agents lean to {answer} without enough confidence: is that right?")
    if "exclusion_unchecked" in short:
        asked.append(unread_question(context.unread_exclusions, answer))
    return " ".join(asked)
