"""Writing one attempt at a claim: the attempt, its agent outputs, tool ledger, resolution and
adjudication.

A first review (recording.py) and a revalidation (revalidation.py) both write an attempt this
way, inside their own write transaction, before they decide anything (decision_rows.py).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, insert

from claims_crew.records import ClaimRecord
from claims_crew.store.tables import adjudications, agent_outputs, attempts, resolutions, tool_calls
from claims_crew.vocabulary import ANSWERING_AGENTS, TASK_OF, AgentName, TaskName, stamp

# The agent outputs a ClaimRecord keeps parsed, and the task each one comes from.
PARSED_TASKS: dict[AgentName, TaskName] = {agent: TASK_OF[agent] for agent in ANSWERING_AGENTS}


def insert_result(
    conn: Connection, record: ClaimRecord, run_id: int | None
) -> tuple[int, int | None]:
    """In a write transaction: the attempt with its outputs, resolution and adjudication;
    returns (attempt id, resolution id or None). The caller keeps the claim file first
    (triage.keep_file)."""
    attempt_id = insert_attempt(conn, record, run_id)
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


def insert_attempt(conn: Connection, record: ClaimRecord, run_id: int | None) -> int:
    """The attempt row, its agent outputs and its tool ledger; returns the attempt's id."""
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
    # Run only with rows: given an empty list, SQLAlchemy runs an insert once, with no values.
    if outputs := _output_rows(record, attempt_id):
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


def _output_rows(record: ClaimRecord, attempt_id: int) -> list[dict[str, Any]]:
    """Every task with raw text, and every parsed answer even where its raw text is absent."""
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
    return outputs
