"""A claim whose review raises after its model calls, every time: as a claim reported on
9999-12-31 did, whose deadline the desk's clocks computed as no date (OverflowError).

Such a claim file is refused at intake now, so the date is put in where the routine computes
what a decision stands on (RunContext.basis), past the intake's check: the real clocks then
overflow on it. `overflowing_basis(claim_id)` is that method for monkeypatching in-process (a
run); `python -m tests.support.raising_review ARGS...` is `claims-crew ARGS...` with it in
place for the claim named by RAISING_REVIEW_AT (the `work` processes of the failure tests).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from datetime import date
from typing import Any

from claims_crew.run.context import RunContext

RAISED = "date value out of range"


def overflowing_basis(claim_id: str) -> Callable[..., Any]:
    """RunContext.basis, on the last date there is as `claim_id`'s date_reported."""
    basis = RunContext.basis

    def overflowing(settings: RunContext, record: Any, loaded: Any) -> Any:
        if loaded.claim.claim_id == claim_id:
            # A real claim's: a sample's clock would not start on its date_reported.
            claim = loaded.claim.model_copy(update={"date_reported": date.max, "sample": False})
            loaded = dataclasses.replace(loaded, claim=claim)
        return basis(settings, record, loaded)

    return overflowing


def main() -> None:
    from claims_crew.cli import main as claims_crew

    RunContext.basis = overflowing_basis(os.environ["RAISING_REVIEW_AT"])  # type: ignore[method-assign]
    claims_crew()


if __name__ == "__main__":
    main()
