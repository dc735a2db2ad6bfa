"""The agree rule: the same answer from both sides, both sides' evidence holding, and the agents
sure enough between them (accept.min_confidence, accept.max_confidence_gap).

Agreement alone is not enough: two agents that obey the same injected instruction agree
confidently, and only the re-read tells that apart from a real agreement.
"""

from __future__ import annotations

from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.resolution import Resolution
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import ReasonCode


def agree(context: Context) -> Resolution | None:
    """ACCEPTED; ESCALATED when both hold but confidence falls short; passes when the answers
    differ or a side's evidence fails."""
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
    for code in short:
        detail = _confidence_detail(code, high, gap, config)
        context.trail.add("agree", False, f"same answer, but {detail}", code)
    if not both_hold:
        if not short:
            context.trail.add("agree", False, "same answer, but not both sides' evidence holds")
        return None
    # Same answer and sound evidence, but the agents are not sure enough between them.
    return context.escalated(
        "agree",
        reason=f"both answer {policy.answer} but "
        + "; ".join(_confidence_detail(c, high, gap, config) for c in short),
        reason_codes=short,
        question=f"Both agents lean to {policy.answer} without enough confidence: is that right?",
    )


def _confidence_detail(code: ReasonCode, high: float, gap: float, config: ResolutionConfig) -> str:
    if code == "low_confidence":
        return f"the higher confidence {high:.2f} is below {config.accept.min_confidence:.2f}"
    return f"the confidences are {gap:.2f} apart, over {config.accept.max_confidence_gap:.2f}"
