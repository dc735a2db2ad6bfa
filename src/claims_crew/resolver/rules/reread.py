"""The reread rule: each side's cited clauses checked against the policy as ../reread.py read it.

It decides nothing: it records in the trail which side's evidence holds (every cited clause
found, quoted truly, one of a kind that supports the answer) and why the others fail, for the
rules after it to weigh.
"""

from __future__ import annotations

from claims_crew.records.resolution import ClauseCheck, Resolution, SideReview
from claims_crew.resolver.rules.context import Context
from claims_crew.vocabulary import ReasonCode


def reread(context: Context) -> Resolution | None:
    """Always passes, having added each side's re-read to the trail."""
    trail = context.trail
    for side, review in context.sides.items():
        problems: list[ReasonCode] = [c for c in review.reason_codes if c != "abstained"]
        if review.holds:
            trail.add("reread", False, f"{side}: every cited clause re-read and verified")
        elif not problems:
            # An abstaining side is not refuted by the re-read: it has no answer to support.
            cited = "its cited clauses re-read and verified" if review.clauses else "cites nothing"
            trail.add("reread", False, f"{side}: abstains ({review.abstain_reason}); {cited}")
        for problem in problems:
            trail.add("reread", True, f"{side}: {_describe(review, problem)}", problem)
    return None


def superseded(check: ClauseCheck) -> str:
    """A clause quoted in words its endorsement took out: "4.2(b) (the quote is the form's
    wording before it was amended by endorsement HM-E-07 (page 1))"."""
    how = (check.amended_by or "as amended by an endorsement").removeprefix("as ")
    return f"{check.cited} (the quote is the form's wording before it was {how})"


def _describe(review: SideReview, code: ReasonCode) -> str:
    bad = {
        "clause_not_found": [c.cited for c in review.clauses if c.status == "clause_not_found"],
        "quote_mismatch": [c.cited for c in review.clauses if c.status == "quote_mismatch"],
        "superseded_wording": [superseded(c) for c in review.clauses if c.status == "superseded"],
    }.get(code)
    if code == "no_evidence":
        return "cites no clause"
    if code == "kind_mismatch":
        return f"no verified clause is of a kind that supports {review.answer}"
    return f"{code.replace('_', ' ')}: {', '.join(bad or [])}"
