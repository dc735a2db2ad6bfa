"""The review desk's rules: who a reviewer is and what they may decide (authority.py), who a
new escalation goes to (assignment.py), which decisions need a second reviewer
(config/desk.yaml, rules.py), clocks on escalations (clocks.py) and appeals (appeal.py).

The pure rules are imported here, for the store to apply inside its transactions; appeal.py
is not, so the store never loads the claim routine that an appeal runs."""

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
