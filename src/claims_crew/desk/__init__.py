"""The review desk's rules, as pure functions: who a reviewer is and what they may decide
(authority.py), who a new escalation goes to (assignment.py), which decisions need a second
reviewer (config/desk.yaml, rules.py), and the clocks on escalations (clocks.py).

The pure rules are imported here. The store applies those that read its rows (authority, four
eyes, assignment) inside its own transactions, handed them by the caller (DeskRules.judge,
Assigner, the refusals), and imports nothing of the desk. The desk imports no claim routine and
no store: an appeal is taken and recorded by run/appeal.py, which applies these rules.

A reviewer's settings and name key, and an escalation's deadlines, are records the store keeps
(records/)."""

from claims_crew.desk.assignment import Assigner, Candidate, choose
from claims_crew.desk.authority import (
    amount_at_stake,
    desk_change_refusal,
    reading_confirm_refusal,
    reassign_refusal,
    refusal,
)
from claims_crew.desk.rules import DeskRules, load_desk

__all__ = [
    "Assigner",
    "Candidate",
    "DeskRules",
    "amount_at_stake",
    "choose",
    "desk_change_refusal",
    "load_desk",
    "reading_confirm_refusal",
    "reassign_refusal",
    "refusal",
]
