"""`claims-crew report` over the store: the report (build.py) from the store's facts.

The facts (store/report_facts.py) are kept as the store writes each decision, one narrow row a
claim; the figures are summed over groups of claims alike in everything the report counts, so
they read as many rows as there are kinds of claim, not claims. Only what the report lists
claim by claim, the claims left for a person, is read row by row, a page of them (`LISTED`).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from claims_crew.desk import clocks
from claims_crew.report.build import Report, build_report, escalation_link
from claims_crew.report.desk import desk_figures
from claims_crew.report.usage import level_times
from claims_crew.resolver.external_codes import ExternalCodes

if TYPE_CHECKING:
    from claims_crew.prices import PriceTable
    from claims_crew.store import Store

# The claims left for a person the report lists, open ones first; the counts cover them all.
LISTED = 500


def report(
    store: Store,
    since: date | None = None,
    prices: PriceTable | None = None,
    codes: ExternalCodes | None = None,
) -> Report:
    """The report from the store's facts (store/report_facts.py): its figures summed over
    groups of claims alike, a page of the claims left for a person, each level's seconds."""
    desk = desk_figures(store.clock_groups(), clocks.today())
    read = store.report_facts(since, LISTED)
    waiting = [
        escalation_link(
            w["claim_id"],
            w["escalation_id"],
            w["outcome"],
            w["reason_codes"],
            w["question"],
            w["escalation_state"],
            w["review"],
            codes,
        )
        for w in read.waiting
    ]
    listed = (waiting, level_times(read.levels))
    return build_report(read.groups, since, prices=prices, desk=desk, codes=codes, listed=listed)
