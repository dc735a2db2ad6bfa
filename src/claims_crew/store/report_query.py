"""The report's one read: every decided claim, joined across eight tables in a single pass.

The report needs, per decided claim, the decision, the resolution, the three parsed answers of
the decided attempt, the adjudicator's verdict, any human review, the escalation's state, two
fields of the claim file and the attempt's cost and stage times, and when the escalation opened
and was reviewed. Reading those claim by claim through the other
Store calls costs several queries each; this is one query over the whole store, and it hands
the parts over as JSON-shaped values, so the report never touches SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

from claims_crew.store.base import StoreBase
from claims_crew.vocabulary import TASK_OF, day_stamp

_DECIDED_SQL = """
SELECT d.claim_id, d.decided_at, d.outcome, d.answer, r.body,
       (SELECT total(value) FROM json_each(a.model_calls)),
       (SELECT total(value) FROM json_each(a.tokens)), a.started_at, a.finished_at,
       oi.parsed, op.parsed, of.parsed, j.valid, j.choice, v.decision, e.id, e.state,
       json_extract(f.fields, '$.date_of_loss'), json_extract(f.fields, '$.amount'),
       a.models, a.tokens_by_task, a.stages, e.opened_at, v.decided_at
FROM decisions d
JOIN resolutions r ON r.id = d.resolution_id
JOIN attempts a ON a.id = d.attempt_id
LEFT JOIN agent_outputs oi ON oi.attempt_id = d.attempt_id AND oi.task = :intake
LEFT JOIN agent_outputs op ON op.attempt_id = d.attempt_id AND op.task = :policy
LEFT JOIN agent_outputs of ON of.attempt_id = d.attempt_id AND of.task = :fraud
LEFT JOIN adjudications j ON j.attempt_id = d.attempt_id
LEFT JOIN reviews v ON v.claim_id = d.claim_id
LEFT JOIN escalations e ON e.claim_id = d.claim_id
LEFT JOIN claim_files f ON f.claim_id = d.claim_id AND f.sha256 = d.claim_sha256
WHERE d.decided_at >= :since
ORDER BY d.claim_id
"""


@dataclass(frozen=True, slots=True)
class DecidedClaim:
    """One decided claim as the report reads it; JSON columns already decoded."""

    claim_id: str
    decided_at: str
    outcome: str
    answer: str | None
    resolution: dict[str, Any]
    intake: dict[str, Any] | None  # the decided attempt's parsed answers, None where absent
    policy: dict[str, Any] | None
    fraud: dict[str, Any] | None
    adjudication: tuple[bool, str | None] | None  # (valid, choice); None when not asked
    review: str | None  # the human decision, when the escalation was reviewed
    escalation: tuple[int, str] | None  # (id, state)
    claim_file: dict[str, Any] | None  # date_of_loss and amount of the version decided
    model_calls: int  # over every task of the decided attempt
    tokens: int
    started_at: str
    finished_at: str
    models: dict[str, str]  # agent → model
    tokens_by_task: dict[str, dict[str, int]]  # task → prompt, completion, calls
    stages: dict[str, list[str]]  # stage → [started_at, finished_at]
    opened_at: str | None  # when the escalation opened
    reviewed_at: str | None  # when a person decided it


class ReportQuery(StoreBase):
    """The decided claims, whole, for the report and the evaluation."""

    def decided_claims(self, since: date | None = None) -> Iterator[DecidedClaim]:
        """Every decided claim (on or after `since`, UTC) in claim-id order, from one snapshot.

        The read stays open until the iteration ends; read it through."""
        loads = json.loads
        params = {
            "intake": TASK_OF["intake"],
            "policy": TASK_OF["policy"],
            "fraud": TASK_OF["fraud"],
            "since": day_stamp(since),
        }
        with self.read() as conn:
            for (
                claim_id,
                decided_at,
                outcome,
                answer,
                body,
                model_calls,
                tokens,
                started,
                finished,
                intake,
                policy,
                fraud,
                valid,
                choice,
                review,
                escalation_id,
                escalation_state,
                file_loss_date,
                file_amount,
                models,
                tokens_by_task,
                stages,
                opened_at,
                reviewed_at,
            ) in conn.execute(_DECIDED_SQL, params):
                yield DecidedClaim(
                    claim_id=claim_id,
                    decided_at=decided_at,
                    outcome=outcome,
                    answer=answer,
                    resolution=loads(body),
                    intake=loads(intake) if intake else None,
                    policy=loads(policy) if policy else None,
                    fraud=loads(fraud) if fraud else None,
                    adjudication=None if valid is None else (bool(valid), choice),
                    review=review,
                    escalation=None if escalation_id is None else (escalation_id, escalation_state),
                    claim_file=None
                    if file_loss_date is None
                    else {"date_of_loss": file_loss_date, "amount": file_amount},
                    model_calls=int(model_calls),
                    tokens=int(tokens),
                    started_at=started,
                    finished_at=finished,
                    models=loads(models),
                    tokens_by_task=loads(tokens_by_task),
                    stages=loads(stages),
                    opened_at=opened_at,
                    reviewed_at=reviewed_at,
                )
