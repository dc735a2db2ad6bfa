"""The report's one read: every decided claim, joined across eight tables in a single pass.

`decided_of` makes the same DecidedClaim from a first decision as it is being written, from the
record in memory: the row the read would give once the transaction commits, without the read.

The report needs, per decided claim, the decision, the resolution, the three parsed answers of
the decided attempt, the adjudicator's verdict, any human review, the escalation's state, two
fields of the claim file and the attempt's cost and stage times, and when the escalation opened
and was reviewed. Reading those claim by claim through the other
Store calls costs several queries each; this is one query over the whole store, and it hands
the parts over as JSON-shaped values, so the report never touches SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import Connection, Select, func, select

from claims_crew.records import ClaimRecord
from claims_crew.records.resolution import Resolution
from claims_crew.store.base import StoreBase
from claims_crew.store.tables import (
    adjudications,
    agent_outputs,
    attempts,
    claim_files,
    decisions,
    escalations,
    resolutions,
    reviews,
)
from claims_crew.vocabulary import TASK_OF, day_stamp, stamp


def _decided_query(since: str, claim_id: str | None = None) -> Select[*tuple[Any, ...]]:
    """The decided claims decided on or after `since` (only `claim_id`'s, given one), each
    joined to everything the report reads of it, in claim-id order. JSON columns come back as
    their text: the sums and fields the report wants from them are taken in Python, the same
    on every engine."""
    intake = agent_outputs.alias("intake")
    policy = agent_outputs.alias("policy")
    fraud = agent_outputs.alias("fraud")
    d = decisions.c
    query = (
        select(
            d.claim_id,
            d.decided_at,
            d.outcome,
            d.answer,
            resolutions.c.body,
            attempts.c.model_calls,
            attempts.c.tokens,
            attempts.c.started_at,
            attempts.c.finished_at,
            intake.c.parsed,
            policy.c.parsed,
            fraud.c.parsed,
            adjudications.c.valid,
            adjudications.c.choice,
            reviews.c.decision,
            escalations.c.id,
            escalations.c.state,
            claim_files.c.fields,
            attempts.c.models,
            attempts.c.tokens_by_task,
            attempts.c.stages,
            escalations.c.opened_at,
            reviews.c.decided_at,
        )
        .select_from(decisions)
        .join(resolutions, resolutions.c.id == d.resolution_id)
        .join(attempts, attempts.c.id == d.attempt_id)
        .outerjoin(
            intake,
            (intake.c.attempt_id == d.attempt_id) & (intake.c.task == TASK_OF["intake"]),
        )
        .outerjoin(
            policy,
            (policy.c.attempt_id == d.attempt_id) & (policy.c.task == TASK_OF["policy"]),
        )
        .outerjoin(fraud, (fraud.c.attempt_id == d.attempt_id) & (fraud.c.task == TASK_OF["fraud"]))
        .outerjoin(adjudications, adjudications.c.attempt_id == d.attempt_id)
        .outerjoin(reviews, reviews.c.claim_id == d.claim_id)
        .outerjoin(escalations, escalations.c.claim_id == d.claim_id)
        .outerjoin(
            claim_files,
            (claim_files.c.claim_id == d.claim_id) & (claim_files.c.sha256 == d.claim_sha256),
        )
        .where(d.decided_at >= since)
        .order_by(d.claim_id, reviews.c.id)
    )
    return query if claim_id is None else query.where(d.claim_id == claim_id)


def _total(counts: str) -> int:
    """The sum of a JSON object's values: a task → count map such as `model_calls`."""
    return int(sum(json.loads(counts).values()))


def _claim_file(fields: str | None) -> dict[str, Any] | None:
    """The two fields of the decided claim file the report compares with intake's answers;
    None without the file, or without its date of loss."""
    if fields is None:
        return None
    data = json.loads(fields)
    if data.get("date_of_loss") is None:
        return None
    return {"date_of_loss": data["date_of_loss"], "amount": data.get("amount")}


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


@dataclass(frozen=True, slots=True)
class EscalationClock:
    """An escalation in force as the desk's figures read it (desk/clocks.py): when it opened
    and was decided, and its last days to acknowledge and to decide (None: no clock)."""

    state: str
    opened_at: str
    decided_at: str | None
    acknowledge_by: str | None
    decide_by: str | None
    count: int = 1  # the escalations alike in all of these (clock_groups)


class ReportQuery(StoreBase):
    """The decided claims, whole, for the report and the evaluation."""

    def escalation_clocks(self) -> list[EscalationClock]:
        """Every escalation in force with its clock, in one query."""
        e = escalations.c
        with self.read() as conn:
            rows = conn.execute(
                select(e.state, e.opened_at, e.decided_at, e.acknowledge_by, e.decide_by)
            ).all()
        return [
            EscalationClock(
                state=row.state,
                opened_at=row.opened_at,
                decided_at=row.decided_at,
                acknowledge_by=row.acknowledge_by,
                decide_by=row.decide_by,
            )
            for row in rows
        ]

    def clock_groups(self) -> list[EscalationClock]:
        """The escalations in force grouped by all the desk's figures read of them: state,
        the days opened and decided, and the two last days; each group with its count. As
        many rows as there are such days, whatever the escalations."""
        e = escalations.c
        keys = (
            e.state,
            func.substr(e.opened_at, 1, 10),
            func.substr(e.decided_at, 1, 10),
            e.acknowledge_by,
            e.decide_by,
        )
        with self.read() as conn:
            rows = conn.execute(select(*keys, func.count()).group_by(*keys)).all()
        return [
            EscalationClock(
                state=row[0],
                opened_at=row[1],
                decided_at=row[2],
                acknowledge_by=row[3],
                decide_by=row[4],
                count=int(row[5]),
            )
            for row in rows
        ]

    def decided_claims(self, since: date | None = None) -> Iterator[DecidedClaim]:
        """Every decided claim (on or after `since`, UTC) in claim-id order, from one snapshot.

        The read stays open until the iteration ends; read it through."""
        with self.read() as conn:
            yield from decided_in(conn, day_stamp(since))


def decided_in(
    conn: Connection, since: str = "", claim_id: str | None = None
) -> Iterator[DecidedClaim]:
    """The decided claims decided on or after the stamp `since` (only `claim_id`'s, given one),
    read in the caller's connection."""
    loads = json.loads
    rows: Iterable[tuple[Any, ...]] = conn.execute(_decided_query(since, claim_id))
    for (
        claim,
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
        fields,
        models,
        tokens_by_task,
        stages,
        opened_at,
        reviewed_at,
    ) in rows:
        yield DecidedClaim(
            claim_id=claim,
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
            claim_file=_claim_file(fields),
            model_calls=_total(model_calls),
            tokens=_total(tokens),
            started_at=started,
            finished_at=finished,
            models=loads(models),
            tokens_by_task=loads(tokens_by_task),
            stages=loads(stages),
            opened_at=opened_at,
            reviewed_at=reviewed_at,
        )


def _dumped(model: Any) -> dict[str, Any] | None:
    """A stored model as the read decodes its JSON column (None where the record has none)."""
    if model is None:
        return None
    dumped: dict[str, Any] = model.model_dump(mode="json")
    return dumped


def decided_of(
    record: ClaimRecord,
    resolution: Resolution,
    decided_at: str,
    escalation_id: int | None,
    claim_fields: str | None,
) -> DecidedClaim:
    """A claim's first decision as `decided_in` reads it back, from the record being written
    (attempt_rows.py writes these same values): no review yet; its escalation, if any, just
    opened at `decided_at`; `claim_fields` the stored fields of the claim file decided."""
    adjudication = record.adjudication
    return DecidedClaim(
        claim_id=record.claim_id,
        decided_at=decided_at,
        outcome=resolution.outcome,
        answer=resolution.answer,
        resolution=resolution.model_dump(mode="json"),
        intake=_dumped(record.intake),
        policy=_dumped(record.policy),
        fraud=_dumped(record.fraud),
        adjudication=None if adjudication is None else (adjudication.valid, adjudication.choice),
        review=None,
        escalation=None if escalation_id is None else (escalation_id, "open"),
        claim_file=_claim_file(claim_fields),
        model_calls=sum(record.model_calls.values()),
        tokens=sum(record.tokens.values()),
        started_at=stamp(record.started_at),
        finished_at=stamp(record.finished_at),
        models=dict(record.models),
        tokens_by_task={t: u.model_dump() for t, u in record.tokens_by_task.items()},
        stages={s: [stamp(t.started_at), stamp(t.finished_at)] for s, t in record.stages.items()},
        opened_at=None if escalation_id is None else decided_at,
        reviewed_at=None,
    )
