"""The review desk in the store: reviewers' settings, assignment, and four eyes.

- A reviewer's role, lines of business, authority and leave to deny are set with an audit
  entry each time (`reviewer`), registration included (reviewers.py).
- An escalation is assigned when it is recorded (decision_rows.py), by the rule in
  config/desk.yaml; `assign` does it again, leaving out whom it is told to (an appeal of a
  person's decision goes to someone else), and a lead may `reassign` it. Each is an `assigned`
  entry, nobody fitting included. Once a reviewer is added or changed, `assign_waiting` gives
  out the open escalations nobody had, by the same rule.
- A decision that needs four eyes is a proposal (queue.py `decide`); a different reviewer
  `confirm`s it, which decides the claim, or `return_proposal`s it, which reopens it. Each of
  these is one write transaction whose first change is a conditional update of the proposal
  (still open?), so of two reviewers confirming at once exactly one decides, and the other is
  told who did.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Connection, select

from claims_crew.errors import AlreadyDecided, NotFound, OutsideAuthority, StoreError
from claims_crew.models import Payable
from claims_crew.records import ReviewerSettings, same_person
from claims_crew.store import desk_rows, proposal_rows
from claims_crew.store.base import StoreBase
from claims_crew.store.desk_rows import Assign, Permit, ReviewerRow, settings_of
from claims_crew.store.proposal_rows import Proposal
from claims_crew.store.queue import Escalation, Judge, close_escalation, escalation_in
from claims_crew.store.review_rows import Review, human_entry, record_review
from claims_crew.store.tables import assignments


def _where(escalation: Escalation) -> tuple[int, str, int]:
    return escalation.id, escalation.claim_id, escalation.audit_seq


class Desk(StoreBase):
    """Reviewers' settings, assignment and four-eyes proposals."""

    def reviewer_list(self) -> list[ReviewerRow]:
        with self.read() as conn:
            return desk_rows.candidates(conn)

    def set_reviewer(
        self, name: str, *, actor: str, permit: Permit | None = None, **changes: Any
    ) -> ReviewerSettings:
        """Change some of a reviewer's settings (role, lines, max_amount, may_deny), with a
        `reviewer` entry by `actor` (who changed them, e.g. `human:lee`, judged by `permit`:
        desk.authority.desk_change_refusal); NotFound for no such reviewer."""
        with self.write() as conn:
            now = settings_of(conn, name).model_dump()
            settings = ReviewerSettings.model_validate({**now, **changes})
            desk_rows.write_settings(
                conn, self.audit_key(), self.now(), name, settings, actor, permit=permit
            )
        return settings

    def confirm_reading(
        self, endorsement: str, digest: str, lead: str, *, permit: Permit
    ) -> tuple[int, str]:
        """Record that `lead` confirmed endorsement `endorsement`'s reading `digest` with a
        `reading_confirmed` entry; `permit` (desk.authority.reading_confirm_refusal) says
        whether they may (OutsideAuthority). Returns the entry's number and time."""
        with self.write() as conn:
            return desk_rows.reading_confirmed_in(
                conn, self.audit_key(), self.now(), endorsement, digest, lead, permit
            )

    def assign(self, ref: str, assign: Assign, leave_out: Collection[str] = ()) -> str | None:
        """Assign an open escalation again by the rule `assign` (desk.assignment.Assigner),
        never to anyone in `leave_out` (for an appeal: the reviewer whose decision it is); the
        reviewer, or None where nobody fits."""
        with self.write() as conn:
            escalation = escalation_in(conn, ref)
            line = conn.execute(
                select(assignments.c.line).where(assignments.c.escalation_id == escalation.id)
            ).scalar()
            return desk_rows.assign_in(
                conn, self.audit_key(), self.now(), _where(escalation), line, assign, leave_out
            )

    def assign_waiting(self, assign: Assign, because: str) -> list[tuple[str, str]]:
        """Give every open escalation nobody has to whom the rule `assign` (desk.assignment.
        Assigner) picks among the reviewers as they stand now, as after a reviewer is added or
        changed (`because` says which, in each `assigned` entry); (claim id, reviewer) for each
        assigned, oldest escalation first."""
        with self.write() as conn:
            return desk_rows.assign_waiting_in(conn, self.audit_key(), self.now(), assign, because)

    def reassign(self, ref: str, to: str, lead: str, reason: str, *, permit: Permit) -> None:
        """A lead gives an open escalation to reviewer `to` (audited, with the lead's reason);
        `permit` (desk.authority.reassign_refusal) says whether `lead` may."""
        if not reason.strip():
            raise StoreError("a reason is required")
        with self.write() as conn:
            escalation = escalation_in(conn, ref)
            if escalation.state != "open":
                raise StoreError(f"claim {escalation.claim_id} is decided; nothing to reassign")
            desk_rows.reassign_in(
                conn,
                self.audit_key(),
                self.now(),
                _where(escalation),
                to,
                lead,
                reason.strip(),
                permit,
            )

    def assignees(self, claim_ids: Sequence[str]) -> dict[str, str | None]:
        """Claim id → the reviewer its escalation is assigned to (None: nobody fits), for the
        claims named that have an assignment."""
        with self.read() as conn:
            rows = conn.execute(
                select(assignments.c.claim_id, assignments.c.reviewer).where(
                    assignments.c.claim_id.in_(list(claim_ids))
                )
            ).all()
        return {row.claim_id: row.reviewer for row in rows}

    def unassigned_whys(self, claim_ids: Sequence[str]) -> dict[str, str]:
        """Claim id → why its escalation has nobody, as recorded when the rule ran, for the
        claims named that are unassigned with a reason kept (none before 0021)."""
        with self.read() as conn:
            rows = conn.execute(
                select(assignments.c.claim_id, assignments.c.why).where(
                    assignments.c.claim_id.in_(list(claim_ids)),
                    assignments.c.reviewer.is_(None),
                    assignments.c.why.is_not(None),
                )
            ).all()
        return {row.claim_id: row.why for row in rows}

    def proposals_waiting(self, claim_ids: Sequence[str]) -> dict[str, Proposal]:
        """Claim id → the proposal waiting on its escalation, for the claims named."""
        with self.read() as conn:
            found = proposal_rows.open_proposals(conn, claim_ids)
        return {p.claim_id: p for p in found}

    def proposal(self, ref: str) -> Proposal | None:
        """The proposal waiting on an escalation, if any."""
        with self.read() as conn:
            return proposal_rows.open_proposal(conn, escalation_in(conn, ref).id)

    def confirm(
        self,
        ref: str,
        reviewer: str,
        reason: str = "",
        payable: Payable | None = None,
        *,
        rules: Judge,
    ) -> Review:
        """Confirm the proposal waiting on an escalation: this decides the claim, with a human
        entry that names the proposal, on the clauses the proposal rests on, and keeps a
        covered decision's amount `payable` (the caller computes it from those clauses).
        Refused to the reviewer who proposed it, and where `rules` (the desk's: DeskRules)
        refuse the confirming reviewer (their own authority, judged on `payable` where the
        decision has one)."""
        with self.write() as conn:
            escalation, proposal = self._waiting(conn, ref, reviewer, "confirm")
            settings = settings_of(conn, reviewer)
            rules.judge(reviewer, settings, proposal.decision, escalation, payable)
            now = self.now()
            proposal_rows.close_proposal(conn, proposal, "confirmed", reviewer, now)
            said = reason.strip() or f"confirms {proposal.reviewer}: {proposal.reason}"
            close_escalation(conn, escalation, escalation.version, reviewer, proposal.decision, now)
            proposal_hash = proposal_rows.entry_hash_of(conn, proposal.audit_seq)
            decided = (reviewer, proposal.decision, said)
            rests_on = (proposal.clauses, payable)
            seq = human_entry(
                conn,
                self.audit_key(),
                escalation,
                decided,
                now,
                rests_on,
                confirms=proposal.audit_seq,
                confirms_hash=proposal_hash,
            )
            proposal_rows.proposal_closed_by(conn, proposal, seq)
            return record_review(conn, escalation, decided, now, seq, rests_on)

    def return_proposal(self, ref: str, reviewer: str, reason: str) -> Proposal:
        """Send the proposal waiting on an escalation back: the escalation is open again, for
        any decision. A reason is required; the proposer cannot return their own."""
        if not reason.strip():
            raise StoreError("a reason is required")
        with self.write() as conn:
            escalation, proposal = self._waiting(conn, ref, reviewer, "return")
            now = self.now()
            proposal_rows.close_proposal(conn, proposal, "returned", reviewer, now)
            proposal_rows.move_version(conn, escalation.id, escalation.claim_id, escalation.version)
            seq, _ = desk_rows.desk_entry(
                conn,
                self.audit_key(),
                now,
                escalation.audit_seq,
                kind="returned",
                actor=f"human:{reviewer}",
                answer=proposal.decision,
                reason=reason.strip(),
                confirms=proposal.audit_seq,
                confirms_hash=proposal_rows.entry_hash_of(conn, proposal.audit_seq),
            )
            proposal_rows.proposal_closed_by(conn, proposal, seq)
            return proposal

    @staticmethod
    def _waiting(
        conn: Connection, ref: str, reviewer: str, what: str
    ) -> tuple[Escalation, Proposal]:
        """The escalation and its open proposal, for `reviewer` (a registered one other than
        the proposer) to close."""
        settings_of(conn, reviewer)
        escalation = escalation_in(conn, ref)
        proposal = proposal_rows.open_proposal(conn, escalation.id)
        if proposal is None:
            latest = proposal_rows.latest_proposal(conn, escalation.id)
            if latest is not None and escalation.state == "open":
                raise StoreError(
                    f"the proposal on {escalation.claim_id} was already {latest.state} "
                    f"by {latest.closed_by}"
                )
            if escalation.state != "open":
                raise AlreadyDecided(
                    escalation.claim_id,
                    escalation.decided_by or "",
                    escalation.decided_at or "",
                    escalation.decision or "",
                )
            raise NotFound(f"nothing is proposed on {escalation.claim_id} to {what}")
        if same_person(proposal.reviewer, reviewer):
            raise OutsideAuthority(
                f"{reviewer} proposed this decision; a different reviewer must {what} it"
            )
        return escalation, proposal
