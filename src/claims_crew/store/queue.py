"""The review queue: escalations waiting for a person, their decisions, and every decided claim.

A person's decision never edits the automatic one. It closes the escalation (checked against the
version the reviewer saw, so the first of two reviewers wins and the second learns who decided),
adds a review row, and appends a human audit entry that names the entry it overrides.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from claims_crew.errors import AlreadyDecided, NotFound, StoreError
from claims_crew.resolver import Resolution
from claims_crew.store import audit
from claims_crew.store.base import StoreBase
from claims_crew.vocabulary import HUMAN_DECISIONS


@dataclass(frozen=True)
class Escalation:
    id: int
    claim_id: str
    amount: str | None
    currency: str | None
    reason_codes: list[str]
    question: str | None
    opened_at: str
    state: str
    version: int
    decided_by: str | None
    decided_at: str | None
    decision: str | None
    audit_seq: int


@dataclass(frozen=True)
class Review:
    id: int
    escalation_id: int
    claim_id: str
    reviewer: str
    decision: str
    reason: str
    decided_at: str
    audit_seq: int


@dataclass(frozen=True)
class Decision:
    """A claim's automatic decision, with the resolution behind it and any human review."""

    claim_id: str
    claim_sha256: str
    outcome: str
    answer: str | None
    decided_by: str
    decided_at: str
    resolution: Resolution
    review: Review | None

    @property
    def final_answer(self) -> str | None:
        """The human's decision where there is one, else the automatic answer."""
        return self.review.decision if self.review else self.answer


_ESCALATION_COLUMNS = (
    "id, claim_id, amount, currency, reason_codes, question, opened_at, state, version, "
    "decided_by, decided_at, decision, audit_seq"
)


def _escalation(row: tuple[Any, ...]) -> Escalation:
    values = list(row)
    values[4] = json.loads(values[4])
    return Escalation(*values)


class Queue(StoreBase):
    """Escalations, the human decisions on them, and the decided claims."""

    def open_escalations(self, limit: int = 50, offset: int = 0) -> list[Escalation]:
        """Open escalations, oldest first."""
        with self.read() as conn:
            rows = conn.execute(
                f"SELECT {_ESCALATION_COLUMNS} FROM escalations WHERE state = 'open' "
                "ORDER BY opened_at, id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return [_escalation(row) for row in rows]

    def open_count(self) -> int:
        with self.read() as conn:
            return int(
                conn.execute("SELECT count(*) FROM escalations WHERE state = 'open'").fetchone()[0]
            )

    def escalation(self, ref: str) -> Escalation:
        """An escalation by claim id, or by its own number."""
        with self.read() as conn:
            row = conn.execute(
                f"SELECT {_ESCALATION_COLUMNS} FROM escalations WHERE claim_id = ?", (ref,)
            ).fetchone()
            if row is None and ref.isdigit():
                row = conn.execute(
                    f"SELECT {_ESCALATION_COLUMNS} FROM escalations WHERE id = ?", (int(ref),)
                ).fetchone()
        if row is None:
            raise NotFound(f"no escalation for {ref!r}")
        return _escalation(row)

    def decide(
        self,
        ref: str,
        decision: str,
        reason: str,
        reviewer: str,
        expected_version: int | None = None,
    ) -> Review:
        """Record a person's decision on an open escalation, as a new audit entry linked to the
        escalation's. With `expected_version` (what the reviewer saw), a decision made since
        is refused: the first reviewer wins and the second learns who decided."""
        if decision not in HUMAN_DECISIONS:
            raise StoreError(f"decision must be one of {', '.join(HUMAN_DECISIONS)}")
        if not reason.strip():
            raise StoreError("a reason is required")
        escalation = self.escalation(ref)
        version = escalation.version if expected_version is None else expected_version
        with self.write() as conn:
            if not conn.execute("SELECT 1 FROM reviewers WHERE name = ?", (reviewer,)).fetchone():
                raise NotFound(
                    f"no reviewer named {reviewer!r}; add one with: claims-crew reviewer add NAME"
                )
            now = self.now()
            updated = conn.execute(
                "UPDATE escalations SET state = 'decided', version = version + 1, "
                "decided_by = ?, decided_at = ?, decision = ? "
                "WHERE id = ? AND version = ? AND state = 'open'",
                (reviewer, now, decision, escalation.id, version),
            ).rowcount
            if updated != 1:
                by, at, what, state = conn.execute(
                    "SELECT decided_by, decided_at, decision, state FROM escalations WHERE id = ?",
                    (escalation.id,),
                ).fetchone()
                if state == "open":  # the version moved without a decision: cannot happen today
                    raise StoreError(f"escalation {escalation.id} changed; reload and retry")
                raise AlreadyDecided(escalation.claim_id, by, at, what)
            overridden_hash = conn.execute(
                "SELECT hash FROM audit_log WHERE seq = ?", (escalation.audit_seq,)
            ).fetchone()[0]
            base = json.loads(
                conn.execute(
                    "SELECT body FROM audit_log WHERE seq = ?", (escalation.audit_seq,)
                ).fetchone()[0]
            )
            entry, _ = audit.append(
                conn,
                kind="human",
                claim_id=escalation.claim_id,
                claim_sha256=base["claim_sha256"],
                policy_sha256=base["policy_sha256"],
                policy_corrections_sha256=base.get("policy_corrections_sha256"),
                config_sha256=base["config_sha256"],
                models=base["models"],
                outcome=base["outcome"],
                answer=decision,
                rule=base["rule"],
                reason_codes=base["reason_codes"],
                evidence=base["evidence"],
                actor=f"human:{reviewer}",
                reason=reason.strip(),
                overrides=escalation.audit_seq,
                overrides_hash=overridden_hash,
                at=now,
            )
            row = (
                escalation.id,
                escalation.claim_id,
                reviewer,
                decision,
                reason.strip(),
                now,
                entry.seq,
            )
            cur = conn.execute(
                "INSERT INTO reviews (escalation_id, claim_id, reviewer, decision, reason, "
                "decided_at, audit_seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            return Review(int(cur.lastrowid or 0), *row)

    def reviews(self, claim_id: str | None = None) -> list[Review]:
        query = (
            "SELECT id, escalation_id, claim_id, reviewer, decision, reason, decided_at, "
            "audit_seq FROM reviews"
        )
        with self.read() as conn:
            if claim_id is None:
                rows = conn.execute(query + " ORDER BY id").fetchall()
            else:
                rows = conn.execute(
                    query + " WHERE claim_id = ? ORDER BY id", (claim_id,)
                ).fetchall()
        return [Review(*row) for row in rows]

    def decisions(self) -> list[Decision]:
        """Every decided claim in claim-id order, with its resolution and any human review."""
        with self.read() as conn:
            rows = conn.execute(
                "SELECT d.claim_id, d.claim_sha256, d.outcome, d.answer, d.decided_by, "
                "d.decided_at, r.body, v.id, v.escalation_id, v.claim_id, v.reviewer, "
                "v.decision, v.reason, v.decided_at, v.audit_seq "
                "FROM decisions d JOIN resolutions r ON r.id = d.resolution_id "
                "LEFT JOIN reviews v ON v.claim_id = d.claim_id ORDER BY d.claim_id"
            ).fetchall()
        return [
            Decision(
                claim_id=row[0],
                claim_sha256=row[1],
                outcome=row[2],
                answer=row[3],
                decided_by=row[4],
                decided_at=row[5],
                resolution=Resolution.model_validate_json(row[6]),
                review=Review(*row[7:]) if row[7] is not None else None,
            )
            for row in rows
        ]

    def decision_count(self) -> int:
        with self.read() as conn:
            return int(conn.execute("SELECT count(*) FROM decisions").fetchone()[0])
