"""The amount payable and the external reason codes of a decision, as plain data for the views.

`review show`, its `--json` and the review page read the same dictionaries (views.py): the
amount and each step behind it with its clause, or why there is none; and beside every internal
code the team's own (config/reason_codes.yaml), or null where the project keeps no mapping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from claims_crew.records.resolution import Resolution
from claims_crew.resolver.external_codes import ExternalCodes, load_external_codes

if TYPE_CHECKING:
    from claims_crew.store import Review


def payable_detail(
    resolution: Resolution | None, review: Review | None = None
) -> dict[str, Any] | None:
    """The payable amount as JSON-ready data: a person's covered decision's, else the rules';
    `held` when a gate held a covered outcome back and no person has decided, so the amount is
    what confirming covered would pay."""
    if review is not None and review.payable is not None:
        return {**review.payable.model_dump(mode="json"), "held": False}
    if resolution is None or resolution.payable is None or review is not None:
        return None
    return {
        **resolution.payable.model_dump(mode="json"),
        "held": not resolution.decided,
    }


def external_detail(
    resolution: Resolution | None, codes: ExternalCodes | None = None
) -> dict[str, Any]:
    """The team's codes: the decision's (or the escalation's first reason's) and each reason
    code's; empty when config/reason_codes.yaml is absent."""
    codes = codes if codes is not None else load_external_codes()
    if codes is None or resolution is None:
        return {"code": None, "reason_codes": {}}
    return {
        "code": codes.of_resolution(resolution),
        "reason_codes": {c: codes.reason_codes.get(c) for c in resolution.reason_codes},
    }
