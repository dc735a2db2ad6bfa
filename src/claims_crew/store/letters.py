"""Decision letters: what a letter is written from, and each letter issued as an audit entry.

A letter is written from the stored decision alone (`decision_on_file`): the decision row, the
resolution behind it, the person's review if there was one, the claim file as decided and the
models named by the decision's audit entry. Issuing one (`record_letter`) appends a `letter`
entry that copies the versions of the decision entry it states and adds the letter's SHA-256,
and a `letters` row naming that entry (letter_rows.py checks the two agree). A letter entry
decides nothing: the queue, the report and revalidation read past it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, select

from claims_crew.errors import StoreError
from claims_crew.models import ClaimFile
from claims_crew.records.resolution import Resolution
from claims_crew.store import audit
from claims_crew.store.base import StoreBase
from claims_crew.store.review_rows import REVIEW_COLUMNS, Review, review_from_row
from claims_crew.store.tables import (
    audit_log,
    claim_files,
    decisions,
    escalations,
    letters,
    resolutions,
    reviews,
)


@dataclass(frozen=True)
class DecisionOnFile:
    """A claim's decision as stored, with everything a letter states."""

    claim_id: str
    claim: ClaimFile | None
    outcome: str
    answer: str | None
    decided_by: str
    decided_at: str
    resolution: Resolution
    escalation_open: bool
    review: Review | None
    models: dict[str, str]
    # The entry in force: the person's, if one decided, else the decision's own.
    entry_seq: int


@dataclass(frozen=True)
class IssuedLetter:
    claim_id: str
    format: str
    sha256: str
    issued_at: str
    audit_seq: int


def _review(conn: Connection, claim_id: str) -> tuple[bool, Review | None]:
    """Whether the claim's escalation is open, and the review that closed it, if any."""
    escalation = conn.execute(
        select(escalations.c.id, escalations.c.state).where(escalations.c.claim_id == claim_id)
    ).first()
    if escalation is None:
        return False, None
    row = conn.execute(
        select(*REVIEW_COLUMNS).where(reviews.c.escalation_id == escalation.id)
    ).first()
    return escalation.state == "open", review_from_row(row) if row is not None else None


def _claim_file(conn: Connection, claim_id: str, sha256: str) -> ClaimFile | None:
    fields = conn.execute(
        select(claim_files.c.fields).where(
            claim_files.c.claim_id == claim_id, claim_files.c.sha256 == sha256
        )
    ).scalar()
    return ClaimFile.model_validate_json(fields) if fields else None


def _on_file(conn: Connection, claim_id: str) -> DecisionOnFile | None:
    row = conn.execute(
        select(decisions, resolutions.c.body, audit_log.c.body.label("entry"))
        .join(resolutions, resolutions.c.id == decisions.c.resolution_id)
        .join(audit_log, audit_log.c.seq == decisions.c.audit_seq)
        .where(decisions.c.claim_id == claim_id)
    ).first()
    if row is None:
        return None
    escalation_open, review = _review(conn, claim_id)
    entry = json.loads(row.entry)
    return DecisionOnFile(
        claim_id=claim_id,
        claim=_claim_file(conn, claim_id, row.claim_sha256),
        outcome=row.outcome,
        answer=row.answer,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        resolution=Resolution.model_validate_json(row.body),
        escalation_open=escalation_open,
        review=review,
        models=dict(entry.get("models") or {}),
        entry_seq=review.audit_seq if review is not None else int(row.audit_seq),
    )


class Letters(StoreBase):
    """What a letter is written from, and the letters issued."""

    def decision_on_file(self, claim_id: str) -> DecisionOnFile | None:
        """The claim's decision as stored; None when it has none (pending, or unknown)."""
        with self.read() as conn:
            return _on_file(conn, claim_id)

    def knows_claim(self, claim_id: str) -> bool:
        """Whether the store has seen the claim's file at all."""
        with self.read() as conn:
            found = conn.execute(
                select(claim_files.c.claim_id).where(claim_files.c.claim_id == claim_id).limit(1)
            ).first()
        return found is not None

    def record_letter(
        self, claim_id: str, format: str, sha256: str, letter_of: int
    ) -> IssuedLetter:
        """Append the letter's audit entry and its row, if the decision it states (entry
        `letter_of`) is still the one in force; else nothing is written."""
        with self.write() as conn:
            on_file = _on_file(conn, claim_id)
            if on_file is None or on_file.entry_seq != letter_of:
                raise StoreError(
                    f"claim {claim_id}'s decision changed while its letter was written; "
                    "write the letter again"
                )
            stated_text: str = conn.execute(
                select(audit_log.c.body).where(audit_log.c.seq == letter_of)
            ).scalar_one()
            issued_at = self.now()
            entry, _ = audit.append(
                conn,
                self.audit_key(),
                kind="letter",
                claim_id=claim_id,
                **audit.carried_from(json.loads(stated_text)),
                answer=on_file.review.decision if on_file.review else on_file.answer,
                actor="letter",
                reason=None,
                overrides=None,
                overrides_hash=None,
                at=issued_at,
                letter_sha256=sha256,
                letter_format=format,
                letter_of=letter_of,
            )
            issued = IssuedLetter(claim_id, format, sha256, issued_at, entry.seq)
            conn.execute(insert(letters).values(**issued.__dict__))
            return issued

    def letters_issued(self, claim_id: str) -> list[IssuedLetter]:
        c = letters.c
        with self.read() as conn:
            rows = conn.execute(
                select(c.claim_id, c.format, c.sha256, c.issued_at, c.audit_seq)
                .where(c.claim_id == claim_id)
                .order_by(c.id)
            ).all()
        found: list[tuple[Any, ...]] = [tuple(row) for row in rows]
        return [IssuedLetter(*row) for row in found]
