"""The clauses the decide form offers a reviewer, as plain data for escalation.html.

Those the re-read verified come first, as boxes to tick; every other clause of the wording in
force is suggested under the field for "another clause" (a datalist: the reviewer may type any
id, which the confirmation step re-reads or refuses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from claims_crew.deciding.clauses import offered_clauses
from claims_crew.desk import load_desk
from claims_crew.errors import ClaimsCrewError, ConfigError

if TYPE_CHECKING:
    from claims_crew.store import Store


def clause_offer(store: Store, detail: dict[str, Any]) -> dict[str, Any]:
    """From an open escalation's detail (views.py, its `clauses_offered`): `verified` and
    `others` (each clause's id, title and more), `free` (the decisions the desk lets a person
    make without a clause) and `problem` (why none can be offered: the policy could not be
    read, say; the form then takes a typed id only)."""
    try:
        free = list(load_desk().decide_without_clause)
    except ConfigError:  # deciding says so; the form itself still shows
        free = []
    offered: list[dict[str, Any]] = detail["clauses_offered"]
    problem = None
    if not offered:  # every wording has clauses: ask again, for why none was read
        try:
            offered = [
                c.model_dump(mode="json") for c in offered_clauses(store, detail["claim_id"])
            ]
        except ClaimsCrewError as exc:
            problem = str(exc)
    return {
        "verified": [c for c in offered if c["verified"]],
        "others": [c for c in offered if not c["verified"]],
        "free": free,
        "problem": problem,
    }
