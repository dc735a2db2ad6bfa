"""The review desk's figures: how long open escalations have waited, and how many were
acknowledged and decided within their clocks (desk/clocks.py). Pure, but for the day given.

- ageing: open escalations by whole days since they opened, in AGEING buckets, and how many
  are past their last day to decide;
- acknowledged on time: an escalation is the claim's acknowledgement (its first review
  recorded, the claimant's case taken in): on time when it opened on or before its
  acknowledge-by day, over the escalations with a clock;
- decided on time: a decided escalation decided on or before its decide-by day, over the
  decided escalations with a clock.

Escalations opened before the clocks existed and whose claim file the store lacked have no
clock, and are counted apart (`no_clock`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from claims_crew.report.metrics import Metric, metric

if TYPE_CHECKING:
    from claims_crew.store import EscalationClock

# Days waiting: [low, high], the last one open-ended (None).
AGEING: tuple[tuple[int, int | None], ...] = ((0, 7), (8, 15), (16, 30), (31, 60), (61, None))


class AgeBucket(BaseModel):
    label: str = Field(description="e.g. 8-15 days.")
    low: int
    high: int | None
    count: int


class DeskFigures(BaseModel):
    on: date = Field(description="The day the ages and the overdue count are taken on.")
    open: int
    overdue: int = Field(description="Open escalations past their last day to decide.")
    ageing: list[AgeBucket]
    acknowledged_on_time: Metric
    decided_on_time: Metric
    no_clock: int = Field(description="Escalations without a clock, left out of the rates.")


def _label(low: int, high: int | None) -> str:
    return f"{low}+ days" if high is None else f"{low}-{high} days"


def desk_figures(rows: Sequence[EscalationClock], on: date) -> DeskFigures:
    """The figures over escalations, each row counted for the escalations it stands for."""
    today = on.isoformat()
    counts = [0] * len(AGEING)
    open_rows = [r for r in rows if r.state == "open"]
    for r in open_rows:
        waited = (on - date.fromisoformat(r.opened_at[:10])).days
        for i, (low, high) in enumerate(AGEING):
            if waited >= low and (high is None or waited <= high):
                counts[i] += r.count
                break
        else:  # opened after `on` (a clock moved back): the youngest bucket
            counts[0] += r.count
    clocked = [r for r in rows if r.decide_by is not None and r.acknowledge_by is not None]
    acknowledged = sum(r.count for r in clocked if r.opened_at[:10] <= (r.acknowledge_by or ""))
    decided = [r for r in clocked if r.state == "decided" and r.decided_at is not None]
    in_time = sum(r.count for r in decided if (r.decided_at or "")[:10] <= (r.decide_by or ""))
    return DeskFigures(
        on=on,
        open=_count(open_rows),
        overdue=sum(r.count for r in open_rows if r.decide_by is not None and r.decide_by < today),
        ageing=[
            AgeBucket(label=_label(low, high), low=low, high=high, count=n)
            for (low, high), n in zip(AGEING, counts, strict=True)
        ],
        acknowledged_on_time=metric(acknowledged, _count(clocked)),
        decided_on_time=metric(in_time, _count(decided)),
        no_clock=_count(rows) - _count(clocked),
    )


def _count(rows: Sequence[EscalationClock]) -> int:
    return sum(r.count for r in rows)
