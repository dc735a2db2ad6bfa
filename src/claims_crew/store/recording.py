"""Recording attempts: runs, triage, and one claim's whole result written in one transaction.

How a batch stays safe to kill and re-run:
- a claim's whole result, its decision and its audit entry are written in one write transaction
  (base.py), so a killed run leaves either all of it or none;
- a claim with a decision is never offered to a model again (`triage`), and `record` looks for
  a decision again under the store's write lock before it writes one (the decisions table allows
  one row per claim besides), so two processes racing on a claim still leave one decision;
- a claim file whose bytes changed after it was decided is flagged `changed_after_decision`
  and left alone: deciding it again is a person's call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from sqlalchemy import Connection, insert, select, update

from claims_crew.claim_files import LoadedClaim
from claims_crew.models import ClaimFile
from claims_crew.records import ClaimRecord
from claims_crew.resolver import Resolution
from claims_crew.store import audit
from claims_crew.store.base import StoreBase
from claims_crew.store.sql import insert_new, upsert
from claims_crew.store.tables import (
    adjudications,
    agent_outputs,
    attempts,
    changed_files,
    claim_files,
    decisions,
    escalations,
    resolutions,
    runs,
    tool_calls,
    validations,
)
from claims_crew.vocabulary import (
    ANSWERING_AGENTS,
    OPEN_OUTCOMES,
    TASK_OF,
    AgentName,
    TaskName,
    parse_stamp,
    stamp,
)

Triage = Literal["todo", "decided", "changed_after_decision"]

# The agent outputs a ClaimRecord keeps parsed, and the task each one comes from.
PARSED_TASKS: dict[AgentName, TaskName] = {agent: TASK_OF[agent] for agent in ANSWERING_AGENTS}


@dataclass(frozen=True)
class Recorded:
    """What `record` wrote: the attempt, and the decision and audit entry if there was one."""

    attempt_id: int
    decided: bool
    outcome: str | None = None
    escalation_id: int | None = None
    audit_seq: int | None = None


@dataclass(frozen=True)
class Basis:
    """What a decision stands on beyond its record: the config files' hash (config_hash.py), and
    how long it stands (resolution.yaml `expiry`; None: for ever)."""

    config_sha256: str | None = None
    valid_for: timedelta | None = None


def decision_fields(record: ClaimRecord, resolution: Resolution) -> dict[str, Any]:
    """What every decision's audit entry says of the claim, the versions it stood on and the
    outcome: the same for a first decision and for one revalidated."""
    return {
        "claim_id": record.claim_id,
        "claim_sha256": record.claim_sha256,
        "policy_sha256": record.policy_sha256,
        "policy_corrections_sha256": record.policy_corrections_sha256,
        "config_sha256": resolution.config_sha256 or None,
        "models": record.models,
        "outcome": resolution.outcome,
        "answer": resolution.answer,
        "rule": resolution.rule,
        "reason_codes": list(resolution.reason_codes),
    }


class Recording(StoreBase):
    """Runs, triage, and recording each attempt at a claim with its decision."""

    def start_run(self, note: str = "") -> int:
        with self.write() as conn:
            return int(
                conn.execute(
                    insert(runs).values(started_at=self.now(), note=note).returning(runs.c.id)
                ).scalar_one()
            )

    def finish_run(self, run_id: int) -> None:
        with self.write() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(finished_at=self.now()))

    def triage(self, loaded: LoadedClaim) -> Triage:
        """Whether a claim file still needs the models; a file changed after its decision is
        flagged in changed_files and not offered again."""
        with self.write() as conn:
            return triage_in(conn, loaded, self.now())

    def record(
        self,
        record: ClaimRecord,
        run_id: int | None = None,
        loaded: LoadedClaim | None = None,
        basis: Basis | None = None,
    ) -> Recorded:
        """Write one claim's result whole, in one transaction: the attempt, agent outputs,
        ledger, resolution and adjudication; and, for a resolved claim not yet decided, its
        decision, its escalation if a person must decide, its audit entry, and what it stood
        on (`basis`, with the record's versions)."""
        with self.write() as conn:
            attempt_id, resolution_id = self._insert_result(conn, record, run_id, loaded)
            resolution = record.resolution
            if resolution is None or resolution_id is None:
                return Recorded(attempt_id, decided=False)
            # Looked for under the write lock, so no other writer can decide it in between.
            decided = conn.execute(
                select(decisions.c.claim_id).where(decisions.c.claim_id == record.claim_id)
            ).first()
            if record.status != "reviewed" or decided is not None:
                # Another process decided this claim meanwhile: its decision stands.
                return Recorded(attempt_id, decided=False, outcome=resolution.outcome)
            return self._decide(
                conn, record, resolution, attempt_id, resolution_id, loaded, basis or Basis()
            )

    def _insert_result(
        self,
        conn: Connection,
        record: ClaimRecord,
        run_id: int | None,
        loaded: LoadedClaim | None,
    ) -> tuple[int, int | None]:
        """The attempt with its outputs, resolution and adjudication; (attempt, resolution)."""
        if loaded is not None:
            keep_file(conn, loaded, self.now())
        attempt_id = self._insert_attempt(conn, record, run_id)
        resolution = record.resolution
        if resolution is None:
            return attempt_id, None
        resolution_id: int = conn.execute(
            insert(resolutions)
            .values(
                attempt_id=attempt_id,
                claim_id=record.claim_id,
                outcome=resolution.outcome,
                rule=resolution.rule,
                answer=resolution.answer,
                reason_codes=json.dumps(resolution.reason_codes),
                question=resolution.question,
                body=resolution.model_dump_json(),
            )
            .returning(resolutions.c.id)
        ).scalar_one()
        if record.adjudication is not None:
            conn.execute(
                insert(adjudications).values(
                    attempt_id=attempt_id,
                    valid=int(record.adjudication.valid),  # 0 or 1: an INTEGER column
                    choice=record.adjudication.choice,
                    body=record.adjudication.model_dump_json(),
                )
            )
        return attempt_id, int(resolution_id)

    def _insert_attempt(self, conn: Connection, record: ClaimRecord, run_id: int | None) -> int:
        attempt_id = int(
            conn.execute(
                insert(attempts)
                .values(
                    run_id=run_id,
                    claim_id=record.claim_id,
                    claim_sha256=record.claim_sha256,
                    claim_path=record.claim_file,
                    policy_id=record.policy_id,
                    status=record.status,
                    error_code=record.error.code if record.error else None,
                    error_message=record.error.message if record.error else None,
                    models=json.dumps(record.models),
                    model_calls=json.dumps(record.model_calls),
                    tokens=json.dumps(record.tokens),
                    tokens_by_task=json.dumps(
                        {t: u.model_dump() for t, u in record.tokens_by_task.items()}
                    ),
                    stages=json.dumps(
                        {
                            s: [stamp(t.started_at), stamp(t.finished_at)]
                            for s, t in record.stages.items()
                        }
                    ),
                    policy_sha256=record.policy_sha256,
                    started_at=stamp(record.started_at),
                    finished_at=stamp(record.finished_at),
                )
                .returning(attempts.c.id)
            ).scalar_one()
        )
        # Every task with raw text, and every parsed answer even where its raw text is absent.
        tasks = dict.fromkeys(
            [*record.raw, *(t for f, t in PARSED_TASKS.items() if getattr(record, f) is not None)]
        )
        fields: dict[str, str] = {task: field for field, task in PARSED_TASKS.items()}
        outputs = []
        for task in tasks:
            field = fields.get(task)
            parsed = getattr(record, field) if field is not None else None
            outputs.append(
                {
                    "attempt_id": attempt_id,
                    "task": task,
                    "field": field,
                    "raw": record.raw.get(task),
                    "parsed": parsed.model_dump_json() if parsed is not None else None,
                }
            )
        # Run only with rows: given an empty list, SQLAlchemy runs an insert once, with no values.
        if outputs:
            conn.execute(insert(agent_outputs), outputs)
        if record.ledger:
            conn.execute(
                insert(tool_calls),
                [
                    {"attempt_id": attempt_id, "seq": i, "body": e.model_dump_json()}
                    for i, e in enumerate(record.ledger)
                ],
            )
        return attempt_id

    def _decide(
        self,
        conn: Connection,
        record: ClaimRecord,
        resolution: Resolution,
        attempt_id: int,
        resolution_id: int,
        loaded: LoadedClaim | None,
        basis: Basis,
        links: dict[str, Any] | None = None,
    ) -> Recorded:
        """The decision, its escalation if a person must decide, its audit entry (with any
        revalidation `links`), and what it stands on (validations)."""
        now = self.now()
        expires_at = self._expires_at(now, basis)
        waits = resolution.outcome in OPEN_OUTCOMES
        by_adjudicator = resolution.rule == "adjudicator"
        kind: audit.EntryKind = (
            "escalated" if waits else "adjudicated" if by_adjudicator else "auto"
        )
        actor = "adjudicator" if by_adjudicator else "auto"
        if by_adjudicator and record.adjudication is not None and not waits:
            evidence = list(record.adjudication.evidence)
        else:
            evidence = [
                c.clause_id or c.cited for side in resolution.sides.values() for c in side.clauses
            ]
        entry, _ = audit.append(
            conn,
            kind=kind,
            **decision_fields(record, resolution),
            evidence=list(dict.fromkeys(evidence)),
            actor=actor,
            reason=resolution.reason,
            overrides=None,
            overrides_hash=None,
            at=now,
            config_files_sha256=basis.config_sha256,
            expires_at=expires_at,
            **(links or {}),
        )
        conn.execute(
            insert(decisions).values(
                claim_id=record.claim_id,
                claim_sha256=record.claim_sha256,
                attempt_id=attempt_id,
                resolution_id=resolution_id,
                outcome=resolution.outcome,
                answer=resolution.answer,
                decided_by=actor,
                decided_at=now,
                audit_seq=entry.seq,
            )
        )
        escalation_id = None
        if waits:
            claim = loaded.claim if loaded is not None else self._claim_file(conn, record)
            escalation_id = int(
                conn.execute(
                    insert(escalations)
                    .values(
                        claim_id=record.claim_id,
                        resolution_id=resolution_id,
                        amount=str(claim.amount) if claim else None,
                        currency=claim.currency if claim else None,
                        reason_codes=json.dumps(resolution.reason_codes),
                        question=resolution.question,
                        opened_at=now,
                        audit_seq=entry.seq,
                    )
                    .returning(escalations.c.id)
                ).scalar_one()
            )
        self._validated(conn, record, attempt_id, entry.seq, now, expires_at, basis)
        return Recorded(attempt_id, True, resolution.outcome, escalation_id, entry.seq)

    @staticmethod
    def _expires_at(now: str, basis: Basis) -> str | None:
        if basis.valid_for is None:
            return None
        return stamp(parse_stamp(now) + basis.valid_for)

    def _validated(
        self,
        conn: Connection,
        record: ClaimRecord,
        attempt_id: int,
        seq: int,
        now: str,
        expires_at: str | None,
        basis: Basis,
    ) -> None:
        """What the claim's decision now stands on, and until when (one row per claim)."""
        upsert(
            conn,
            validations,
            {
                "claim_id": record.claim_id,
                "audit_seq": seq,
                "attempt_id": attempt_id,
                "claim_sha256": record.claim_sha256,
                "validated_at": now,
                "expires_at": expires_at,
                "policy_sha256": record.policy_sha256,
                "policy_corrections_sha256": record.policy_corrections_sha256,
                "config_sha256": basis.config_sha256,
                "models": json.dumps(record.models),
            },
            ("claim_id",),
        )

    def _claim_file(self, conn: Connection, record: ClaimRecord) -> ClaimFile | None:
        fields = conn.execute(
            select(claim_files.c.fields).where(
                claim_files.c.claim_id == record.claim_id,
                claim_files.c.sha256 == record.claim_sha256,
            )
        ).scalar()
        return ClaimFile.model_validate_json(fields) if fields else None


def keep_file(conn: Connection, loaded: LoadedClaim, now: str) -> None:
    """The claim file whole, once per version: bytes, fields and attachments' text (a row kept
    before attachments were stored gets them now), so a worker can review it without the
    inbox."""
    attachments = json.dumps(loaded.attachments, ensure_ascii=False)
    key = {"claim_id": loaded.claim.claim_id, "sha256": loaded.sha256}
    row = {
        **key,
        "path": str(loaded.path),
        "policy_id": loaded.claim.policy_id,
        "fields": loaded.claim.model_dump_json(),
        "content": loaded.raw,
        "attachments": attachments,
        "seen_at": now,
    }
    if not insert_new(conn, claim_files, row, ("claim_id", "sha256")):
        conn.execute(
            update(claim_files)
            .where(
                claim_files.c.claim_id == key["claim_id"],
                claim_files.c.sha256 == key["sha256"],
                claim_files.c.attachments.is_(None),
            )
            .values(attachments=attachments)
        )


def triage_in(conn: Connection, loaded: LoadedClaim, now: str) -> Triage:
    """In a write transaction: keep the file, and say whether the claim still needs the
    models; a file changed after its claim's decision is flagged in changed_files."""
    claim_id, sha = loaded.claim.claim_id, loaded.sha256
    keep_file(conn, loaded, now)
    # A revalidation may have checked the decision again on a newer file.
    row = conn.execute(
        select(decisions.c.claim_sha256, validations.c.claim_sha256)
        .select_from(
            decisions.outerjoin(validations, validations.c.claim_id == decisions.c.claim_id)
        )
        .where(decisions.c.claim_id == claim_id)
    ).first()
    if row is None:
        return "todo"
    if sha in (row[0], row[1]):
        return "decided"
    insert_new(
        conn,
        changed_files,
        {
            "claim_id": claim_id,
            "decided_sha256": row[0],
            "sha256": sha,
            "path": str(loaded.path),
            "seen_at": now,
        },
        ("claim_id", "sha256"),
    )
    return "changed_after_decision"
