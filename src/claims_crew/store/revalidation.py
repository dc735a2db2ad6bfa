"""Decisions as they stand, and recording a revalidation of one as a linked audit entry.

A claim's standing is its decision in force (with any person's review of it) and what that
decision last stood on (the `validations` row: policy PDF, kind corrections, config files,
models, claim file, and when it expires). `review stale` compares it with the project now.

A revalidation is a new attempt at the claim, and an audit entry that names the claim's entry in
force by number and hash (`revalidates`) and says what had changed:

- a replay (the same outcome and answer): a `revalidated` entry; the decision and any person's
  review stand, and the validations row moves to the new versions;
- a new decision: the decision, escalation and review rows in force are kept whole in
  `superseded` beside the entry that replaced them, and the new decision is recorded as any
  decision is, its entry carrying the link. A person's decision is never overwritten: the caller
  turns a new outcome on a claim a person decided into an escalation, so it goes back to the
  queue while the person's entry stays in the chain and their review in `superseded`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, select

from claims_crew.claim_files import LoadedClaim
from claims_crew.errors import StoreError
from claims_crew.records import ClaimRecord
from claims_crew.records.resolution import Resolution
from claims_crew.store import audit
from claims_crew.store.attempt_rows import insert_result
from claims_crew.store.base import StoreBase
from claims_crew.store.call_rows import NOT_A_CALL
from claims_crew.store.decision_rows import (
    Basis,
    cited_clauses,
    decide,
    decision_fields,
    expires_at,
    validated,
)
from claims_crew.store.metric_totals import uncount_claim
from claims_crew.store.report_facts import keep_facts
from claims_crew.store.tables import (
    assignments,
    attempts,
    audit_log,
    changed_files,
    claim_files,
    decisions,
    escalations,
    letters,
    reviews,
    superseded,
    validations,
)
from claims_crew.store.triage import keep_file
from claims_crew.vocabulary import RevalidationVerdict, StaleReason


@dataclass(frozen=True)
class Standing:
    """A decided claim as it stands now."""

    claim_id: str
    claim_path: str
    policy_id: str
    outcome: str
    answer: str | None
    decided_by: str
    decided_at: str
    # What the decision last stood on (validations).
    claim_sha256: str
    validated_at: str
    expires_at: str | None
    policy_sha256: str | None
    policy_corrections_sha256: str | None
    config_sha256: str | None
    models: dict[str, str]
    # The claim's latest audit entry: the one a revalidation links to.
    entry_seq: int
    # A person's decision in force, if any: (reviewer, decision, decided at).
    human: tuple[str, str, str] | None = None
    escalation_open: bool = False
    # The claim file's policy number and date of loss, as decided: which wording in force the
    # policy hash is of (policy/in_force.py). None for files kept before fields were.
    policy_number: str | None = None
    date_of_loss: str | None = None


# Each decided claim with what it stands on, its latest entry and any person's review of it.
# A letter's entry decides nothing (letters.py), nor does a service client's call (clients.py):
# read past them.
_DECIDING = and_(audit_log.c.seq.not_in(select(letters.c.audit_seq)), NOT_A_CALL)
_LATEST_ENTRY = (
    select(func.max(audit_log.c.seq))
    .where(audit_log.c.claim_id == decisions.c.claim_id, _DECIDING)
    .scalar_subquery()
)
_STANDING = select(
    decisions.c.claim_id, attempts.c.claim_path, attempts.c.policy_id, decisions.c.outcome,
    decisions.c.answer, decisions.c.decided_by, decisions.c.decided_at,
    validations.c.claim_sha256, validations.c.validated_at, validations.c.expires_at,
    validations.c.policy_sha256, validations.c.policy_corrections_sha256,
    validations.c.config_sha256, validations.c.models,
    _LATEST_ENTRY,
    reviews.c.reviewer, reviews.c.decision, reviews.c.decided_at, escalations.c.state,
    claim_files.c.fields,
).select_from(
    decisions.join(validations, validations.c.claim_id == decisions.c.claim_id)
    .join(attempts, attempts.c.id == validations.c.attempt_id)
    .outerjoin(claim_files, (claim_files.c.claim_id == decisions.c.claim_id)
               & (claim_files.c.sha256 == validations.c.claim_sha256))
    .outerjoin(escalations, escalations.c.claim_id == decisions.c.claim_id)
    .outerjoin(reviews, reviews.c.escalation_id == escalations.c.id)
)  # fmt: skip


def _standing(row: Sequence[Any]) -> Standing:
    (claim_id, path, policy_id, outcome, answer, decided_by, decided_at, claim_sha, validated_at,
     expires_at, policy, corrections, config, models, seq, reviewer, decision, reviewed_at,
     state, fields) = row  # fmt: skip
    claim = json.loads(fields) if fields else {}
    return Standing(
        claim_id=claim_id,
        claim_path=path,
        policy_id=policy_id,
        outcome=outcome,
        answer=answer,
        decided_by=decided_by,
        decided_at=decided_at,
        claim_sha256=claim_sha,
        validated_at=validated_at,
        expires_at=expires_at,
        policy_sha256=policy,
        policy_corrections_sha256=corrections,
        config_sha256=config,
        models=json.loads(models),
        entry_seq=int(seq),
        human=(reviewer, decision, reviewed_at) if reviewer is not None else None,
        escalation_open=state == "open",
        policy_number=claim.get("policy_number"),
        date_of_loss=claim.get("date_of_loss"),
    )


@dataclass(frozen=True)
class Revalidated:
    """What recording a revalidation wrote."""

    attempt_id: int
    audit_seq: int
    verdict: RevalidationVerdict
    escalation_id: int | None = None


class Revalidations(StoreBase):
    """Standings of decided claims, and revalidations recorded against them."""

    def standings(self, claim_ids: list[str] | None = None) -> list[Standing]:
        """Every decided claim's standing in claim-id order, or those of `claim_ids`."""
        with self.read() as conn:
            return self._standings(conn, claim_ids)

    @staticmethod
    def _standings(conn: Connection, claim_ids: list[str] | None) -> list[Standing]:
        query = _STANDING.order_by(decisions.c.claim_id)
        if claim_ids is not None:
            query = query.where(decisions.c.claim_id.in_(claim_ids))
        return [_standing(tuple(row)) for row in conn.execute(query)]

    def record_revalidation(
        self,
        record: ClaimRecord,
        loaded: LoadedClaim,
        basis: Basis,
        verdict: RevalidationVerdict,
        changed: list[StaleReason],
        expected_seq: int,
    ) -> Revalidated:
        """Record a reviewed revalidation of a decided claim, linked to its entry in force,
        which must still be `expected_seq` (else someone acted on the claim meanwhile)."""

        def links(seq: int, digest: str) -> dict[str, Any]:
            return {
                "revalidates": seq,
                "revalidates_hash": digest,
                "revalidation": verdict,
                "changed": list(changed),
            }

        return self._decided_again(record, loaded, basis, expected_seq, links, verdict)

    def record_appeal(
        self,
        record: ClaimRecord,
        loaded: LoadedClaim,
        basis: Basis,
        appeal: dict[str, Any],
        expected_seq: int,
    ) -> Revalidated:
        """Record an appeal's review of a decided claim as a new decision, its entry naming the
        entry in force (`expected_seq`, checked as a revalidation checks it) by number and hash,
        with the appeal's reason, new attachments and any earlier reviewer (audit.AppealLink).
        The rows in force are kept whole in `superseded`, as a revalidation's new decision
        keeps them."""

        def links(seq: int, digest: str) -> dict[str, Any]:
            return {"appeal": {**appeal, "replaces": seq, "replaces_hash": digest}}

        return self._decided_again(record, loaded, basis, expected_seq, links, "new")

    def _decided_again(
        self,
        record: ClaimRecord,
        loaded: LoadedClaim,
        basis: Basis,
        expected_seq: int,
        link: Callable[[int, str], dict[str, Any]],
        verdict: RevalidationVerdict,
    ) -> Revalidated:
        """A decided claim reviewed again, in one transaction: its attempt, and either a replay
        or a new decision whose entry carries `link(seq, hash)` of the entry in force."""
        resolution = record.resolution
        if record.status != "reviewed" or resolution is None:
            raise StoreError(f"claim {record.claim_id}: a failed review decides nothing")
        with self.write() as conn:
            row = conn.execute(
                select(audit_log.c.seq, audit_log.c.hash)
                .where(audit_log.c.claim_id == record.claim_id, _DECIDING)
                .order_by(audit_log.c.seq.desc())
                .limit(1)
            ).first()
            if row is None or int(row[0]) != expected_seq:
                raise StoreError(
                    f"claim {record.claim_id} changed while it was reviewed again; run it again"
                )
            links = link(int(row[0]), str(row[1]))
            keep_file(conn, loaded, self.now())
            attempt_id, resolution_id = insert_result(conn, record, None)
            assert resolution_id is not None
            # The claim file decided again, if it had changed: no longer waiting for a person.
            conn.execute(
                delete(changed_files).where(
                    changed_files.c.claim_id == record.claim_id,
                    changed_files.c.sha256 == record.claim_sha256,
                )
            )
            if verdict == "replay":
                seq = self._replayed(conn, record, resolution, attempt_id, basis, links)
                return Revalidated(attempt_id, seq, verdict)
            # The entry about to be appended, under this transaction's lock.
            self._supersede(conn, record.claim_id, audit.head(conn)[0] + 1)
            now = self.now()
            done = decide(
                conn,
                self.audit_key(),
                now,
                record,
                resolution,
                attempt_id,
                resolution_id,
                loaded,
                basis,
                links,
            )
            assert done.audit_seq is not None
            return Revalidated(attempt_id, done.audit_seq, verdict, done.escalation_id)

    def _replayed(
        self,
        conn: Connection,
        record: ClaimRecord,
        resolution: Resolution,
        attempt_id: int,
        basis: Basis,
        links: dict[str, Any],
    ) -> int:
        """The same decision again: a `revalidated` entry, and the versions it now stands on."""
        now = self.now()
        until = expires_at(now, basis)
        changed = ", ".join(links["changed"]) or "nothing"
        entry, _ = audit.append(
            conn,
            self.audit_key(),
            kind="revalidated",
            **decision_fields(record, resolution),
            evidence=cited_clauses(resolution),
            actor="auto",
            reason=f"replays the decision in force under the current state (changed: {changed})",
            overrides=None,
            overrides_hash=None,
            at=now,
            config_files_sha256=basis.config_sha256,
            expires_at=until,
            **links,
        )
        validated(conn, record, attempt_id, entry.seq, now, until, basis)
        return entry.seq

    def _supersede(self, conn: Connection, claim_id: str, by_seq: int) -> None:
        """Move the claim's review, escalation, validation and decision rows out of force,
        each kept whole (as JSON) in `superseded` with the entry it recorded."""
        now = self.now()
        uncount_claim(conn, claim_id)
        for what, table in (
            ("review", reviews),
            ("escalation", escalations),
            ("decision", decisions),
        ):
            found_rows = conn.execute(
                select(table).where(table.c.claim_id == claim_id).order_by(*table.primary_key)
            ).mappings()
            for found in found_rows.all():
                conn.execute(
                    insert(superseded).values(
                        claim_id=claim_id,
                        what=what,
                        audit_seq=found["audit_seq"],
                        row=json.dumps(dict(found)),
                        superseded_at=now,
                        superseded_by=by_seq,
                    )
                )
            if table is decisions:
                conn.execute(delete(validations).where(validations.c.claim_id == claim_id))
            conn.execute(delete(table).where(table.c.claim_id == claim_id))
        keep_facts(conn, claim_id)  # none now: the new decision writes its own
        # Who had the escalation goes with it (its entries stay); a new one is assigned anew.
        # Proposals stay, on an escalation that is no more (proposal_rows.py).
        conn.execute(delete(assignments).where(assignments.c.claim_id == claim_id))
