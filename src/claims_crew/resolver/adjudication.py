"""The adjudicator's answer, checked: an interpretation dispute settled, or sent to a person.

The adjudicator is a model, so its answer is held to the same standard as the reviewers': it
must name a side (or escalate), give a reason, and rest on clauses that were cited and verified
on re-reading, or on the exclusions the claim's words fit, which the code found and showed it.
An answer that fails any of that escalates; one that passes still goes through the gates, like
any outcome that would stand without a person, provenance included: among the clauses it names,
one must support the chosen answer and have come from policy_lookup to the chosen side.
"""

from __future__ import annotations

from claims_crew.models import AdjudicatorAnswer, ParseFailure
from claims_crew.policy.ids import clause_key
from claims_crew.records import AdjudicationCheck
from claims_crew.records.resolution import Resolution, Trail
from claims_crew.resolver.case import Case
from claims_crew.resolver.config import ResolutionConfig
from claims_crew.resolver.gates import gated_or


def apply_adjudication(
    case: Case,
    config: ResolutionConfig,
    resolution: Resolution,
    answer: AdjudicatorAnswer | ParseFailure,
) -> tuple[Resolution, AdjudicationCheck]:
    """Turn an interpretation dispute into ADJUDICATED, or ESCALATED when the answer fails a check.

    The answer must name a side (or escalate), give a reason, and rest on clauses that either side
    cited and that re-read as verified, or that the claim's words fit (the exclusions the code
    found and showed it), at least one of a kind that supports the chosen answer.
    """
    if resolution.outcome != "ADJUDICATION_REQUIRED":
        raise ValueError(f"only an interpretation dispute is adjudicated, not {resolution.outcome}")
    trail = Trail()
    trail.steps = [s for s in resolution.trail if s.rule != "gates"]
    if isinstance(answer, ParseFailure):
        check = AdjudicationCheck(raw=answer.raw, valid=False, problems=[answer.reason])
        return _adjudicator_invalid(resolution, trail, check), check
    raw = answer.model_dump_json()
    problems = []
    if not answer.reason.strip():
        problems.append("no reason given")
    if answer.choice == "escalate":
        check = AdjudicationCheck(
            raw=raw, valid=not problems, choice="escalate", reason=answer.reason, problems=problems
        )
        if problems:
            return _adjudicator_invalid(resolution, trail, check), check
        trail.add("adjudicator", True, f"escalated: {answer.reason}", "interpretation_unresolved")
        return resolution.escalate(
            "adjudicator",
            reason=f"the adjudicator could not settle the reading: {answer.reason}",
            reason_codes=["interpretation_unresolved"],
            trail=trail.steps,
        ), check
    chosen = resolution.sides[answer.choice]
    kinds = _readable_kinds(case, resolution)
    cited = [kinds.get(clause_key(cid)) for cid in answer.evidence]
    if not answer.evidence:
        problems.append("no evidence given")
    if unknown := [cid for cid, kind in zip(answer.evidence, cited, strict=True) if kind is None]:
        problems.append(
            "evidence not among the verified cited clauses or the fitting exclusions: "
            + ", ".join(unknown)
        )
    supporting = config.evidence_kinds.get(chosen.answer or "", ())
    if answer.evidence and not any(kind in supporting for kind in cited if kind is not None):
        problems.append(f"no evidence clause is of a kind that supports {chosen.answer}")
    check = AdjudicationCheck(
        raw=raw,
        valid=not problems,
        choice=answer.choice,
        reason=answer.reason,
        evidence=list(answer.evidence),
        problems=problems,
    )
    if problems:
        return _adjudicator_invalid(resolution, trail, check), check
    trail.add("adjudicator", True, f"chose {answer.choice}: {answer.reason}")
    decided = resolution.adjudicated(
        answer.choice,
        chosen.answer,
        reason=f"the adjudicator chose {answer.choice}'s reading: {answer.reason}",
        trail=trail.steps,
    )
    # The decision rests on the clauses the adjudicator named: one of them must be a supporting
    # clause that policy_lookup returned to the side it chose.
    return gated_or(case, config, trail, decided, resting_on=answer.evidence), check


def _readable_kinds(case: Case, resolution: Resolution) -> dict[str, str]:
    """The clauses the adjudicator may rest on, by key, with their kinds: those either side
    cited that re-read as verified, and the exclusions the claim's words fit (the code read
    those itself; the adjudicator is shown them)."""
    kinds = {clause_key(f.clause.id): f.clause.kind for f in case.exclusions}
    kinds |= {
        clause_key(c.clause_id): c.kind or ""
        for review in resolution.sides.values()
        for c in review.clauses
        if c.status == "verified" and c.clause_id is not None
    }
    return kinds


def _adjudicator_invalid(
    resolution: Resolution,
    trail: Trail,
    check: AdjudicationCheck,
) -> Resolution:
    trail.add(
        "adjudicator", True, "answer refused: " + "; ".join(check.problems), "adjudicator_invalid"
    )
    return resolution.escalate(
        "adjudicator",
        reason="the adjudicator's answer failed the checks: " + "; ".join(check.problems),
        reason_codes=["adjudicator_invalid"],
        trail=trail.steps,
    )
