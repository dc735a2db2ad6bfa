"""A claim read back: its file's fields, its attempts as ClaimRecords, files changed since.

An attempt is spread over several tables (attempts, agent_outputs, tool_calls, resolutions,
adjudications); `_load_attempt` puts it back together into the ClaimRecord the pipeline wrote.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from claims_crew.models import ClaimFile
from claims_crew.records import ClaimRecord
from claims_crew.store.base import StoreBase


@dataclass(frozen=True)
class ChangedFile:
    claim_id: str
    decided_sha256: str
    sha256: str
    path: str
    seen_at: str


class Claims(StoreBase):
    """Reading a claim's file and records back."""

    def claim_file(self, claim_id: str, sha256: str | None = None) -> ClaimFile | None:
        """The claim file's fields: the version decided, else the latest one seen."""
        with self.read() as conn:
            if sha256 is None:
                row = conn.execute(
                    "SELECT claim_sha256 FROM decisions WHERE claim_id = ?", (claim_id,)
                ).fetchone()
                sha256 = row[0] if row else None
            query = "SELECT fields FROM claim_files WHERE claim_id = ?"
            args: tuple[str, ...] = (claim_id,)
            if sha256 is not None:
                query += " AND sha256 = ?"
                args = (claim_id, sha256)
            row = conn.execute(query + " ORDER BY seen_at DESC LIMIT 1", args).fetchone()
        return ClaimFile.model_validate_json(row[0]) if row and row[0] else None

    def claim_record(self, claim_id: str) -> ClaimRecord | None:
        """The claim's record as the pipeline made it: the decided attempt, else the latest."""
        with self.read() as conn:
            row = (
                conn.execute(
                    "SELECT attempt_id FROM decisions WHERE claim_id = ?", (claim_id,)
                ).fetchone()
                or conn.execute(
                    "SELECT id FROM attempts WHERE claim_id = ? ORDER BY id DESC LIMIT 1",
                    (claim_id,),
                ).fetchone()
            )
            return None if row is None else _load_attempt(conn, int(row[0]))

    def attempts(self, claim_id: str) -> list[ClaimRecord]:
        """Every attempt at a claim, oldest first (failed ones included)."""
        with self.read() as conn:
            ids = conn.execute(
                "SELECT id FROM attempts WHERE claim_id = ? ORDER BY id", (claim_id,)
            ).fetchall()
            return [_load_attempt(conn, int(i)) for (i,) in ids]

    def changed_after_decision(self) -> list[ChangedFile]:
        with self.read() as conn:
            rows = conn.execute(
                "SELECT claim_id, decided_sha256, sha256, path, seen_at FROM changed_files "
                "ORDER BY seen_at, claim_id"
            ).fetchall()
        return [ChangedFile(*row) for row in rows]


def _load_attempt(conn: sqlite3.Connection, attempt_id: int) -> ClaimRecord:
    (
        claim_id,
        sha,
        path,
        policy_id,
        status,
        error_code,
        error_message,
        models,
        model_calls,
        tokens,
        tokens_by_task,
        stages,
        policy_sha,
        started,
        finished,
    ) = conn.execute(
        "SELECT claim_id, claim_sha256, claim_path, policy_id, status, error_code, "
        "error_message, models, model_calls, tokens, tokens_by_task, stages, policy_sha256, "
        "started_at, finished_at "
        "FROM attempts WHERE id = ?",
        (attempt_id,),
    ).fetchone()
    data: dict[str, Any] = {
        "claim_id": claim_id,
        "claim_file": path,
        "claim_sha256": sha,
        "policy_id": policy_id,
        "status": status,
        "error": {"code": error_code, "message": error_message} if error_code else None,
        "models": json.loads(models),
        "model_calls": json.loads(model_calls),
        "tokens": json.loads(tokens),
        "tokens_by_task": json.loads(tokens_by_task),
        "stages": {
            stage: {"started_at": started_at, "finished_at": finished_at}
            for stage, (started_at, finished_at) in json.loads(stages).items()
        },
        "policy_sha256": policy_sha,
        "started_at": started,
        "finished_at": finished,
        "raw": {},
        "ledger": [
            json.loads(body)
            for (body,) in conn.execute(
                "SELECT body FROM tool_calls WHERE attempt_id = ? ORDER BY seq", (attempt_id,)
            )
        ],
    }
    for task, field, raw, parsed in conn.execute(
        "SELECT task, field, raw, parsed FROM agent_outputs WHERE attempt_id = ?", (attempt_id,)
    ):
        if raw is not None:
            data["raw"][task] = raw
        if field is not None and parsed is not None:
            data[field] = json.loads(parsed)
    row = conn.execute(
        "SELECT body FROM resolutions WHERE attempt_id = ?", (attempt_id,)
    ).fetchone()
    data["resolution"] = json.loads(row[0]) if row else None
    row = conn.execute(
        "SELECT body FROM adjudications WHERE attempt_id = ?", (attempt_id,)
    ).fetchone()
    data["adjudication"] = json.loads(row[0]) if row else None
    return ClaimRecord.model_validate(data)
