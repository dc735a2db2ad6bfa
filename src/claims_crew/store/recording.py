"""Recording attempts: runs, triage, and one claim's whole result written in one transaction.

How a batch stays safe to kill and re-run:
- a claim's whole result, its decision and its audit entry are written in one `BEGIN IMMEDIATE`
  transaction, so a killed run leaves either all of it or none;
- a claim with a decision is never offered to a model again (`triage`), and the decisions table
  allows one row per claim, so two processes racing on a claim still leave one decision;
- a claim file whose bytes changed after it was decided is flagged `changed_after_decision`
  and left alone: deciding it again is a person's call.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from claims_crew.claim_files import LoadedClaim
from claims_crew.models import ClaimFile
from claims_crew.records import ClaimRecord
from claims_crew.resolver import Resolution
from claims_crew.store import audit
from claims_crew.store.base import StoreBase
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
            cur = conn.execute(
                "INSERT INTO runs (started_at, note) VALUES (?, ?)", (self.now(), note)
            )
            return int(cur.lastrowid or 0)

    def finish_run(self, run_id: int) -> None:
        with self.write() as conn:
            conn.execute("UPDATE runs SET finished_at = ? WHERE id = ?", (self.now(), run_id))

    def triage(self, loaded: LoadedClaim) -> Triage:
        """Whether a claim file still needs the models; a file changed after its decision is
        flagged in changed_files and not offered again."""
        claim_id = loaded.claim.claim_id
        sha = loaded.sha256
        with self.write() as conn:
            self._keep_file(conn, loaded, sha)
            # A revalidation may have checked the decision again on a newer file.
            row = conn.execute(
                "SELECT d.claim_sha256, v.claim_sha256 FROM decisions d "
                "LEFT JOIN validations v ON v.claim_id = d.claim_id WHERE d.claim_id = ?",
                (claim_id,),
            ).fetchone()
            if row is None:
                return "todo"
            if sha in (row[0], row[1]):
                return "decided"
            conn.execute(
                "INSERT OR IGNORE INTO changed_files "
                "(claim_id, decided_sha256, sha256, path, seen_at) VALUES (?, ?, ?, ?, ?)",
                (claim_id, row[0], sha, str(loaded.path), self.now()),
            )
            return "changed_after_decision"

    def _keep_file(self, conn: sqlite3.Connection, loaded: LoadedClaim, sha: str) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO claim_files "
            "(claim_id, sha256, path, policy_id, fields, content, seen_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                loaded.claim.claim_id,
                sha,
                str(loaded.path),
                loaded.claim.policy_id,
                loaded.claim.model_dump_json(),
                loaded.raw,
                self.now(),
            ),
        )

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
            if (
                record.status != "reviewed"
                or conn.execute(
                    "SELECT 1 FROM decisions WHERE claim_id = ?", (record.claim_id,)
                ).fetchone()
            ):
                # Another process decided this claim meanwhile: its decision stands.
                return Recorded(attempt_id, decided=False, outcome=resolution.outcome)
            return self._decide(
                conn, record, resolution, attempt_id, resolution_id, loaded, basis or Basis()
            )

    def _insert_result(
        self,
        conn: sqlite3.Connection,
        record: ClaimRecord,
        run_id: int | None,
        loaded: LoadedClaim | None,
    ) -> tuple[int, int | None]:
        """The attempt with its outputs, resolution and adjudication; (attempt, resolution)."""
        if loaded is not None:
            self._keep_file(conn, loaded, record.claim_sha256)
        attempt_id = self._insert_attempt(conn, record, run_id)
        resolution = record.resolution
        if resolution is None:
            return attempt_id, None
        cur = conn.execute(
            "INSERT INTO resolutions "
            "(attempt_id, claim_id, outcome, rule, answer, reason_codes, question, body) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                attempt_id,
                record.claim_id,
                resolution.outcome,
                resolution.rule,
                resolution.answer,
                json.dumps(resolution.reason_codes),
                resolution.question,
                resolution.model_dump_json(),
            ),
        )
        resolution_id = int(cur.lastrowid or 0)
        if record.adjudication is not None:
            conn.execute(
                "INSERT INTO adjudications (attempt_id, valid, choice, body) VALUES (?, ?, ?, ?)",
                (
                    attempt_id,
                    record.adjudication.valid,
                    record.adjudication.choice,
                    record.adjudication.model_dump_json(),
                ),
            )
        return attempt_id, resolution_id

    def _insert_attempt(
        self, conn: sqlite3.Connection, record: ClaimRecord, run_id: int | None
    ) -> int:
        cur = conn.execute(
            "INSERT INTO attempts (run_id, claim_id, claim_sha256, claim_path, policy_id, "
            "status, error_code, error_message, models, model_calls, tokens, tokens_by_task, "
            "stages, policy_sha256, started_at, finished_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                record.claim_id,
                record.claim_sha256,
                record.claim_file,
                record.policy_id,
                record.status,
                record.error.code if record.error else None,
                record.error.message if record.error else None,
                json.dumps(record.models),
                json.dumps(record.model_calls),
                json.dumps(record.tokens),
                json.dumps({t: u.model_dump() for t, u in record.tokens_by_task.items()}),
                json.dumps(
                    {
                        s: [stamp(t.started_at), stamp(t.finished_at)]
                        for s, t in record.stages.items()
                    }
                ),
                record.policy_sha256,
                stamp(record.started_at),
                stamp(record.finished_at),
            ),
        )
        attempt_id = int(cur.lastrowid or 0)
        # Every task with raw text, and every parsed answer even where its raw text is absent.
        tasks = dict.fromkeys(
            [*record.raw, *(t for f, t in PARSED_TASKS.items() if getattr(record, f) is not None)]
        )
        fields: dict[str, str] = {task: field for field, task in PARSED_TASKS.items()}
        for task in tasks:
            field = fields.get(task)
            parsed = getattr(record, field) if field is not None else None
            conn.execute(
                "INSERT INTO agent_outputs (attempt_id, task, field, raw, parsed) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    attempt_id,
                    task,
                    field,
                    record.raw.get(task),
                    parsed.model_dump_json() if parsed is not None else None,
                ),
            )
        conn.executemany(
            "INSERT INTO tool_calls (attempt_id, seq, body) VALUES (?, ?, ?)",
            [(attempt_id, i, e.model_dump_json()) for i, e in enumerate(record.ledger)],
        )
        return attempt_id

    def _decide(
        self,
        conn: sqlite3.Connection,
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
            "INSERT INTO decisions (claim_id, claim_sha256, attempt_id, resolution_id, outcome, "
            "answer, decided_by, decided_at, audit_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.claim_id,
                record.claim_sha256,
                attempt_id,
                resolution_id,
                resolution.outcome,
                resolution.answer,
                actor,
                now,
                entry.seq,
            ),
        )
        escalation_id = None
        if waits:
            claim = loaded.claim if loaded is not None else self._claim_file(conn, record)
            cur = conn.execute(
                "INSERT INTO escalations (claim_id, resolution_id, amount, currency, "
                "reason_codes, question, opened_at, audit_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.claim_id,
                    resolution_id,
                    str(claim.amount) if claim else None,
                    claim.currency if claim else None,
                    json.dumps(resolution.reason_codes),
                    resolution.question,
                    now,
                    entry.seq,
                ),
            )
            escalation_id = int(cur.lastrowid or 0)
        self._validated(conn, record, attempt_id, entry.seq, now, expires_at, basis)
        return Recorded(attempt_id, True, resolution.outcome, escalation_id, entry.seq)

    @staticmethod
    def _expires_at(now: str, basis: Basis) -> str | None:
        if basis.valid_for is None:
            return None
        return stamp(parse_stamp(now) + basis.valid_for)

    def _validated(
        self,
        conn: sqlite3.Connection,
        record: ClaimRecord,
        attempt_id: int,
        seq: int,
        now: str,
        expires_at: str | None,
        basis: Basis,
    ) -> None:
        """What the claim's decision now stands on, and until when (one row per claim)."""
        conn.execute(
            "INSERT INTO validations (claim_id, audit_seq, attempt_id, claim_sha256, "
            "validated_at, expires_at, policy_sha256, policy_corrections_sha256, config_sha256, "
            "models) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (claim_id) DO UPDATE SET "
            "audit_seq = excluded.audit_seq, attempt_id = excluded.attempt_id, "
            "claim_sha256 = excluded.claim_sha256, "
            "validated_at = excluded.validated_at, expires_at = excluded.expires_at, "
            "policy_sha256 = excluded.policy_sha256, "
            "policy_corrections_sha256 = excluded.policy_corrections_sha256, "
            "config_sha256 = excluded.config_sha256, models = excluded.models",
            (
                record.claim_id,
                seq,
                attempt_id,
                record.claim_sha256,
                now,
                expires_at,
                record.policy_sha256,
                record.policy_corrections_sha256,
                basis.config_sha256,
                json.dumps(record.models),
            ),
        )

    def _claim_file(self, conn: sqlite3.Connection, record: ClaimRecord) -> ClaimFile | None:
        row = conn.execute(
            "SELECT fields FROM claim_files WHERE claim_id = ? AND sha256 = ?",
            (record.claim_id, record.claim_sha256),
        ).fetchone()
        return ClaimFile.model_validate_json(row[0]) if row and row[0] else None
