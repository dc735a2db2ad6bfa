"""The report's facts (report_tables.py): written with the decision they summarize, read grouped.

`add_fact` writes a decision's fact from the row it makes in memory (decision_rows.py, as the
decision is written: report_query.decided_of, no read). `keep_facts` makes a claim's fact again
from its rows in force, in the caller's transaction: review_rows.py calls it when a person's
review is written, revalidation.py when the rows in force are superseded (the claim's fact goes
with them; the new decision adds its own). `recount_facts` makes them all again (migration
0022); tests/test_report_facts.py holds the two ways of making a fact to the same rows.

`fact_groups` is what the report sums: one row per shape with how many claims it stands for
and their sums (a `ClaimRow` of that weight, records/claim_row.py), so the report reads as
many rows as there are kinds of claim. `level_seconds` gives each level's count, total,
median and longest, the median read at its place in the column's order (two rows at most);
`waiting_page` the claims left for a person, open ones first, a page of them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select

from claims_crew.records.claim_row import (
    ClaimRow,
    SideRow,
    TaskTokens,
    bucket_of,
    build_row,
    seconds_between,
)
from claims_crew.store.base import StoreBase
from claims_crew.store.report_query import DecidedClaim, decided_in
from claims_crew.store.report_tables import (
    FACT_STAGES,
    FACT_TASKS,
    TASK_PARTS,
    report_facts,
    report_shapes,
)
from claims_crew.store.sql import insert_new
from claims_crew.vocabulary import DECISION_LEVELS, OPEN_OUTCOMES, day_stamp

MICROS = 1_000_000
# The columns each group sums.
_SUMMED: tuple[str, ...] = (
    "model_calls",
    "tokens",
    "micros",
    "person_micros",
    "policy_confidence",
    "fraud_confidence",
    *(f"{stage}_micros" for stage in FACT_STAGES),
    *(f"{task}_{part}" for task in FACT_TASKS for part in TASK_PARTS),
)


def claim_row(c: DecidedClaim) -> ClaimRow:
    """The report's row of one decided claim as the store read it."""
    return build_row(
        claim_id=c.claim_id,
        decided_at=c.decided_at,
        outcome=c.outcome,
        answer=c.answer,
        resolution=c.resolution,
        intake=c.intake,
        policy=c.policy,
        fraud=c.fraud,
        adjudication=c.adjudication,
        review=c.review,
        escalation=c.escalation,
        claim_file=c.claim_file,
        model_calls=c.model_calls,
        tokens=c.tokens,
        seconds=seconds_between(c.started_at, c.finished_at),
        tokens_by_task=c.tokens_by_task,
        models=c.models,
        stages={stage: (started, finished) for stage, (started, finished) in c.stages.items()},
        opened_at=c.opened_at,
        reviewed_at=c.reviewed_at,
    )


def _micros(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * MICROS)


def _side_shape(side: SideRow) -> dict[str, Any]:
    confidence = side.confidence
    return {
        "ran": side.ran,
        "parsed": side.parsed,
        "answer": side.answer,
        "bucket": None if confidence is None else bucket_of(confidence),
        "clauses": list(side.clauses),
        "verified": list(side.verified),
        "holds": side.holds,
        "facts_relied_on": list(side.facts_relied_on),
        "abstain_reason": side.abstain_reason,
    }


def shape_of(row: ClaimRow) -> dict[str, Any]:
    """Everything of a row the report counts by, and nothing it sums: claims alike in this are
    one group. A task's `quiet` flag (calls, no tokens reported) is kept so a group is priced
    or not as each of its claims would be; a task without columns keeps its numbers here."""
    tasks = row.tokens_by_task
    return {
        "outcome": row.outcome,
        "rule": row.rule,
        "answer": row.answer,
        "reason_codes": list(row.reason_codes),
        "missing_facts": list(row.missing_facts),
        "loss_type": row.loss_type,
        "intake": row.intake,
        "null_fields": list(row.null_fields),
        "disputed_fields": list(row.disputed_fields),
        "unverified_fields": list(row.unverified_fields),
        "policy": _side_shape(row.policy),
        "fraud": _side_shape(row.fraud),
        "adjudicator": row.adjudicator,
        "review": row.review,
        "escalated": row.escalation_id is not None,
        "escalation_state": row.escalation_state,
        "targeted": row.targeted,
        "debate": row.debate,
        "models": row.models,
        "called": row.model_calls > 0,
        "tasks": {t: bool(u.calls and not u.prompt + u.completion) for t, u in tasks.items()},
        "other_tasks": {t: list(u) for t, u in tasks.items() if t not in FACT_TASKS},
        "stages": sorted(s for s in row.stage_seconds if s in FACT_STAGES),
        "person": row.person_seconds is not None,
    }


def fact_of(row: ClaimRow) -> tuple[str, str, dict[str, Any]]:
    """A row's shape key, its shape (canonical JSON) and its fact's values."""
    shape = json.dumps(shape_of(row), sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(shape.encode()).hexdigest()
    values: dict[str, Any] = {
        "claim_id": row.claim_id,
        "decided_at": row.decided_at,
        "shape": key,
        "outcome": row.outcome,
        "rule": row.rule,
        "loss_type": row.loss_type,
        "reason_codes": json.dumps(list(row.reason_codes)),
        "question": row.question,
        "escalation_id": row.escalation_id,
        "escalation_state": row.escalation_state,
        "review": row.review,
        "model_calls": row.model_calls,
        "tokens": row.tokens,
        "micros": _micros(row.seconds),
        "person_micros": _micros(row.person_seconds),
        "policy_confidence": row.policy.confidence,
        "fraud_confidence": row.fraud.confidence,
    }
    for stage in FACT_STAGES:
        values[f"{stage}_micros"] = _micros(row.stage_seconds.get(stage))
    for task in FACT_TASKS:
        used = row.tokens_by_task.get(task, TaskTokens())
        values.update({f"{task}_{part}": getattr(used, part) for part in TASK_PARTS})
    return key, shape, values


def _insert_facts(conn: Connection, rows: Iterable[ClaimRow]) -> None:
    facts, shapes = [], {}
    for row in rows:
        key, shape, values = fact_of(row)
        shapes[key] = shape
        facts.append(values)
    for key, shape in shapes.items():
        insert_new(conn, report_shapes, {"key": key, "shape": shape}, ["key"])
    if facts:
        conn.execute(insert(report_facts), facts)


def add_fact(conn: Connection, row: ClaimRow) -> None:
    """The fact of a claim that has none yet (one per claim: a second is refused)."""
    _insert_facts(conn, (row,))


def keep_facts(conn: Connection, claim_id: str) -> None:
    """Make the claim's fact again from its rows in force (none once they are superseded)."""
    conn.execute(delete(report_facts).where(report_facts.c.claim_id == claim_id))
    rows = {c.claim_id: claim_row(c) for c in decided_in(conn, "", claim_id)}
    _insert_facts(conn, rows.values())


def recount_facts(conn: Connection) -> None:
    """Make every fact again from the decisions in force (a one-off: it reads every one)."""
    conn.execute(delete(report_facts))
    rows = {c.claim_id: claim_row(c) for c in decided_in(conn)}
    _insert_facts(conn, rows.values())


def _number(value: Any) -> float:
    """A SUM as Python sees it: PostgreSQL sums integers as numeric (Decimal)."""
    return 0 if value is None else value if isinstance(value, float) else int(value)


def _grouped(key: str, shape: dict[str, Any], sums: dict[str, Any], weight: int) -> ClaimRow:
    """The row standing for `weight` claims of one shape: their sums, their mean confidences."""

    def side(name: str) -> SideRow:
        s = shape[name]
        total = sums[f"{name}_confidence"]
        return SideRow(
            ran=s["ran"],
            parsed=s["parsed"],
            answer=s["answer"],
            confidence=None if s["bucket"] is None else float(total) / weight,
            clauses=tuple(s["clauses"]),
            verified=tuple(s["verified"]),
            holds=s["holds"],
            facts_relied_on=tuple(s["facts_relied_on"]),
            abstain_reason=s["abstain_reason"],
        )

    tasks = {
        task: TaskTokens(*(int(_number(sums[f"{task}_{part}"])) for part in TASK_PARTS))
        for task in shape["tasks"]
        if task in FACT_TASKS
    }
    tasks.update(
        {t: TaskTokens(*(n * weight for n in used)) for t, used in shape["other_tasks"].items()}
    )
    return ClaimRow(
        claim_id=f"shape:{key}",  # a group, not a claim: the report lists none of these
        decided_at=sums["decided_at"],  # the latest
        outcome=shape["outcome"],
        rule=shape["rule"],
        answer=shape["answer"],
        reason_codes=tuple(shape["reason_codes"]),
        missing_facts=tuple(shape["missing_facts"]),
        loss_type=shape["loss_type"],
        intake=shape["intake"],
        null_fields=tuple(shape["null_fields"]),
        disputed_fields=tuple(shape["disputed_fields"]),
        unverified_fields=tuple(shape["unverified_fields"]),
        policy=side("policy"),
        fraud=side("fraud"),
        adjudicator=shape["adjudicator"],
        review=shape["review"],
        escalation_id=0 if shape["escalated"] else None,  # has one; which is not read here
        escalation_state=shape["escalation_state"],
        question=None,
        model_calls=int(_number(sums["model_calls"])),
        tokens=int(_number(sums["tokens"])),
        seconds=_number(sums["micros"]) / MICROS,
        tokens_by_task=tasks,
        models=shape["models"],
        stage_seconds={s: _number(sums[f"{s}_micros"]) / MICROS for s in shape["stages"]},
        person_seconds=_number(sums["person_micros"]) / MICROS if shape["person"] else None,
        targeted=shape["targeted"],
        debate=shape["debate"],
        weight=weight,
    )


def fact_groups(conn: Connection, since: str) -> list[ClaimRow]:
    """The facts decided on or after the stamp `since`, one weighted row per shape."""
    f = report_facts.c
    summed = [func.sum(f[name]).label(name) for name in _SUMMED]
    found = conn.execute(
        select(f.shape, func.count().label("weight"), func.max(f.decided_at).label("decided_at"))
        .add_columns(*summed)
        .where(f.decided_at >= since)
        .group_by(f.shape)
        .order_by(f.shape)
    ).mappings()
    groups = [dict(row) for row in found]
    keys = [g["shape"] for g in groups]
    s = report_shapes.c
    found_shapes = conn.execute(select(s.key, s.shape).where(s.key.in_(keys)))
    shapes: dict[str, str] = {str(key): str(shape) for key, shape in found_shapes}
    return [_grouped(g["shape"], json.loads(shapes[g["shape"]]), g, g["weight"]) for g in groups]


@dataclass(frozen=True, slots=True)
class LevelSeconds:
    """One level's seconds over the claims that reached it."""

    claims: int
    total: float
    median: float | None
    longest: float | None


def level_seconds(conn: Connection, since: str, level: str, groups: list[ClaimRow]) -> LevelSeconds:
    """A level's count and total from the groups (person: opened → decided by a person), its
    median and longest walked along the level's index (column, decided_at): no sort."""
    if level == "person":
        seconds = [(g.weight, g.person_seconds) for g in groups if g.person_seconds is not None]
    else:
        seconds = [(g.weight, g.stage_seconds[level]) for g in groups if level in g.stage_seconds]
    claims = sum(w for w, _ in seconds)
    if not claims:
        return LevelSeconds(0, 0.0, None, None)
    column = report_facts.c[f"{level}_micros"]
    where = column.is_not(None) & (report_facts.c.decided_at >= since)
    in_order = select(column).where(where)
    at = in_order.order_by(column).offset((claims - 1) // 2).limit(1 if claims % 2 else 2)
    middle: list[int] = list(conn.execute(at).scalars())
    longest: int = conn.execute(in_order.order_by(column.desc()).limit(1)).scalar_one()
    return LevelSeconds(
        claims=claims,
        total=sum(s for _, s in seconds),
        median=sum(m / MICROS for m in middle) / len(middle),
        longest=_number(longest) / MICROS,
    )


def waiting_page(conn: Connection, since: str, limit: int) -> list[dict[str, Any]]:
    """At most `limit` claims left for a person, decided on or after `since`: those with an
    open escalation first, then the rest, each part in claim-id order."""
    f = report_facts.c
    waiting = (f.decided_at >= since) & f.outcome.in_(OPEN_OUTCOMES)
    columns = [f.claim_id, f.escalation_id, f.outcome, f.reason_codes, f.question, f.review]
    columns.append(f.escalation_state)
    page: list[dict[str, Any]] = []
    for state in (f.escalation_state == "open", f.escalation_state.is_distinct_from("open")):
        if len(page) < limit:
            query = select(*columns).where(waiting & state).order_by(f.claim_id)
            page += [dict(r) for r in conn.execute(query.limit(limit - len(page))).mappings()]
    for row in page:
        row["reason_codes"] = json.loads(row["reason_codes"])
    return page


@dataclass(frozen=True, slots=True)
class FactsRead:
    """What the report reads of the facts, from one snapshot."""

    groups: list[ClaimRow]
    levels: dict[str, LevelSeconds]
    waiting: list[dict[str, Any]]


class ReportFacts(StoreBase):
    """The report's facts, grouped, for `claims-crew report`."""

    def report_facts(self, since: date | None, listed: int) -> FactsRead:
        """The groups, each level's seconds and a page of `listed` claims left for a person,
        of the claims decided on or after `since` (UTC)."""
        cutoff = day_stamp(since)
        with self.read() as conn:
            groups = fact_groups(conn, cutoff)
            return FactsRead(
                groups=groups,
                levels={
                    level: level_seconds(conn, cutoff, level, groups) for level in DECISION_LEVELS
                },
                waiting=waiting_page(conn, cutoff, listed),
            )
