"""A claim read back: its file's fields, its attempts as ClaimRecords, files changed since.

An attempt is spread over several tables (attempts, agent_outputs, tool_calls, resolutions,
adjudications); `_load_attempt` puts it back together into the ClaimRecord the pipeline wrote.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date
from typing import Any

from sqlalchemy import Connection, func, select

from claims_crew.models import ClaimFile
from claims_crew.records import ClaimRecord
from claims_crew.store.base import StoreBase
from claims_crew.store.outage import rides_out
from claims_crew.store.tables import (
    adjudications,
    agent_outputs,
    attempts,
    changed_files,
    claim_files,
    decisions,
    resolutions,
    tool_calls,
)
from claims_crew.store.triage import reviewed_on
from claims_crew.vocabulary import parse_stamp


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
                sha256 = conn.execute(
                    select(decisions.c.claim_sha256).where(decisions.c.claim_id == claim_id)
                ).scalar()
            query = select(claim_files.c.fields).where(claim_files.c.claim_id == claim_id)
            if sha256 is not None:
                query = query.where(claim_files.c.sha256 == sha256)
            fields = conn.execute(
                query.order_by(claim_files.c.seen_at.desc(), claim_files.c.sha256).limit(1)
            ).scalar()
        return ClaimFile.model_validate_json(fields) if fields else None

    @rides_out
    def first_received(self, claim_id: str) -> date | None:
        """The day (UTC) this store first kept any version of the claim's file; None if never:
        where a sample claim's desk clock starts (desk/clocks.py)."""
        with self.read() as conn:
            first = conn.execute(
                select(func.min(claim_files.c.seen_at)).where(claim_files.c.claim_id == claim_id)
            ).scalar()
        return None if first is None else parse_stamp(str(first)).astimezone(UTC).date()

    @rides_out
    def claim_record(self, claim_id: str) -> ClaimRecord | None:
        """The claim's record as the pipeline made it: the decided attempt, else the latest."""
        with self.read() as conn:
            attempt_id = conn.execute(
                select(decisions.c.attempt_id).where(decisions.c.claim_id == claim_id)
            ).scalar()
            if attempt_id is None:
                attempt_id = conn.execute(
                    select(attempts.c.id)
                    .where(attempts.c.claim_id == claim_id)
                    .order_by(attempts.c.id.desc())
                    .limit(1)
                ).scalar()
            return None if attempt_id is None else _load_attempt(conn, int(attempt_id))

    def attempts(self, claim_id: str) -> list[ClaimRecord]:
        """Every attempt at a claim, oldest first (failed ones included)."""
        with self.read() as conn:
            ids: list[int] = list(
                conn.execute(
                    select(attempts.c.id)
                    .where(attempts.c.claim_id == claim_id)
                    .order_by(attempts.c.id)
                ).scalars()
            )
            return [_load_attempt(conn, int(i)) for i in ids]

    def changed_after_decision(self, claim_id: str | None = None) -> list[ChangedFile]:
        """Claim files taken in after their claim's decision (only `claim_id`'s, when given)."""
        c = changed_files.c
        # One flagged before every reviewed version counted as decided is not shown as changed.
        query = (
            select(changed_files)
            .where(~reviewed_on(c.claim_id, c.sha256))
            .order_by(c.seen_at, c.claim_id, c.sha256)
        )
        if claim_id is not None:
            query = query.where(c.claim_id == claim_id)
        with self.read() as conn:
            rows = conn.execute(query).mappings()
            return [ChangedFile(**row) for row in rows]  # its fields are the table's columns


def _load_attempt(conn: Connection, attempt_id: int) -> ClaimRecord:
    a = conn.execute(select(attempts).where(attempts.c.id == attempt_id)).mappings().one()
    data: dict[str, Any] = {
        "claim_id": a["claim_id"],
        "claim_file": a["claim_path"],
        "claim_sha256": a["claim_sha256"],
        "policy_id": a["policy_id"],
        "status": a["status"],
        "error": (
            {"code": a["error_code"], "message": a["error_message"]} if a["error_code"] else None
        ),
        "models": json.loads(a["models"]),
        "model_calls": json.loads(a["model_calls"]),
        "tokens": json.loads(a["tokens"]),
        "tokens_by_task": json.loads(a["tokens_by_task"]),
        "stages": {
            stage: {"started_at": started_at, "finished_at": finished_at}
            for stage, (started_at, finished_at) in json.loads(a["stages"]).items()
        },
        "policy_sha256": a["policy_sha256"],
        "started_at": a["started_at"],
        "finished_at": a["finished_at"],
        "raw": {},
        "ledger": [
            json.loads(row["body"])
            for row in conn.execute(
                select(tool_calls.c.body)
                .where(tool_calls.c.attempt_id == attempt_id)
                .order_by(tool_calls.c.seq)
            ).mappings()
        ],
    }
    outputs = conn.execute(
        select(agent_outputs)
        .where(agent_outputs.c.attempt_id == attempt_id)
        .order_by(agent_outputs.c.task)
    ).mappings()
    for output in outputs:
        if output["raw"] is not None:
            data["raw"][output["task"]] = output["raw"]
        if output["field"] is not None and output["parsed"] is not None:
            data[output["field"]] = json.loads(output["parsed"])
    for name, table in (("resolution", resolutions), ("adjudication", adjudications)):
        body = conn.execute(select(table.c.body).where(table.c.attempt_id == attempt_id)).scalar()
        data[name] = json.loads(body) if body is not None else None
    return ClaimRecord.model_validate(data)
