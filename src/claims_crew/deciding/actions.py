"""What a person does to an escalation: decide it on clauses, confirm or return a proposal,
reassign it. The command line (cli/review.py, cli/desk.py) and the review page
(review/routes_*.py) call these and only translate what they return or raise.

Deciding and confirming come in two steps, because both the terminal and the page show a
person what would be recorded (the clauses as re-read, the amount) before it is: `choose` and
`confirming` read and compute, and refuse with a typed error (errors.py); `decide` and
`confirm` record what they read. The store applies the desk's rules (authority, four eyes)
inside its own transaction, handed them here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from claims_crew.deciding.clauses import confirmable, decision_clauses
from claims_crew.deciding.payable import payable_on_decision, payable_on_proposal
from claims_crew.desk import DeskRules, load_desk, reassign_refusal
from claims_crew.models import Payable
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import PersonClause

if TYPE_CHECKING:
    from claims_crew.store import Proposal, Review, Store


@dataclass(frozen=True)
class Choice:
    """What a decision would record: the desk's rules it is judged by, its clauses as re-read
    and the amount computed from them (None for a decision that pays nothing)."""

    decision: str
    rules: DeskRules
    clauses: tuple[PersonClause, ...]
    payable: Payable | None


def choose(
    store: Store,
    claim_id: str,
    decision: str,
    clause_ids: Sequence[str],
    rules: DeskRules | None = None,
    library: PolicyLibrary | None = None,
) -> Choice:
    """A person's `decision` on the claim with the clauses `clause_ids` re-read in the wording
    in force and the amount computed from them. `rules` are the desk's, read from
    config/desk.yaml where not given (the command line reads them before it looks the
    escalation up). ClauseRefused, UnknownClause, ConfigError or a PolicyError say why not."""
    rules = rules if rules is not None else load_desk()
    library = library or PolicyLibrary()  # one reading of the policies for both steps
    clauses = decision_clauses(store, claim_id, decision, clause_ids, rules, library)
    payable = payable_on_decision(store, claim_id, decision, library, clauses)
    return Choice(decision, rules, clauses, payable)


def decide(
    store: Store,
    ref: str,
    choice: Choice,
    reason: str,
    reviewer: str,
    expected_version: int | None = None,
) -> Review | Proposal:
    """Record `choice` on escalation `ref` (claim id or number) as `reviewer`'s, with its
    reason: a decision, or a proposal where the desk wants four eyes. With `expected_version`
    (what the reviewer saw), a decision made meanwhile is refused (AlreadyDecided)."""
    return store.decide(
        ref,
        choice.decision,
        reason,
        reviewer,
        expected_version=expected_version,
        rules=choice.rules,
        payable=choice.payable,
        clauses=choice.clauses,
    )


@dataclass(frozen=True)
class Confirmation:
    """What confirming the proposal waiting on an escalation would record: the desk's rules,
    the proposal (None where none waits: the confirmation says so) and its amount."""

    rules: DeskRules
    waiting: Proposal | None
    payable: Payable | None


def confirming(store: Store, ref: str) -> Confirmation:
    """The proposal waiting on escalation `ref`, ready to confirm; ClauseRefused where it
    rests on no clause and the desk wants one, ConfigError where desk.yaml cannot be read."""
    rules = load_desk()
    waiting = store.proposal(ref)
    confirmable(waiting, rules)
    return Confirmation(rules, waiting, payable_on_proposal(store, waiting))


def confirm(
    store: Store, ref: str, confirmation: Confirmation, reviewer: str, reason: str = ""
) -> Review:
    """Confirm the proposal on escalation `ref` as `reviewer` (not the one who proposed it,
    within their own authority): it decides the claim on the clauses it rests on."""
    return store.confirm(ref, reviewer, reason, confirmation.payable, rules=confirmation.rules)


def return_proposal(store: Store, ref: str, reviewer: str, reason: str) -> Proposal:
    """Send the proposal on escalation `ref` back: the escalation is open again, undecided."""
    return store.return_proposal(ref, reviewer, reason)


def reassign(store: Store, ref: str, to: str, lead: str, reason: str) -> None:
    """Give the open escalation `ref` to reviewer `to`; only a lead may (desk/authority.py)."""
    store.reassign(ref, to, lead, reason, permit=reassign_refusal)
