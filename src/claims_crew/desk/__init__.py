"""The review desk's rules, as pure functions: who a reviewer is and what they may decide
(authority.py), who a new escalation goes to (assignment.py), which decisions need a second
reviewer (config/desk.yaml, rules.py), and the clocks on escalations (clocks.py).

The desk decides nothing by itself and imports no claim routine and no store: an appeal is
taken and recorded by run/appeal.py, which applies these rules."""

from claims_crew.desk.assignment import Candidate, choose
from claims_crew.desk.authority import ReviewerSettings, amount_at_stake, refusal
from claims_crew.desk.rules import DeskRules, load_desk

__all__ = [
    "Candidate",
    "DeskRules",
    "ReviewerSettings",
    "amount_at_stake",
    "choose",
    "load_desk",
    "refusal",
]
