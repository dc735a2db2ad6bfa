"""The totals /metrics reads, kept as the store writes, so a scrape costs the same at a hundred
claims as at a hundred thousand (one scrape used to read every decided claim whole).

Each is changed in the transaction that writes what it counts, so it is never ahead of or
behind the rows:
- `decisions` (outcome, rule): +1 when a decision is written (decision_rows.py), -1 when it is
  superseded (revalidation.py), as the report's rows count them;
- `model_usage` (task, model): the decided attempt's calls and prompt and completion tokens,
  task by task, with the model of the task's agent (AGENT_OF_TASK; '' for a task no agent owns,
  or an agent without a model), added and taken off with its decision. Cost is not kept: it is
  the price table's at the time of the scrape, and a price is linear in tokens;
- `claims`: claims the store keeps a file of, each once, counted when its first version is
  kept (triage.py);
- `deliveries`: webhook deliveries ever made, counted as the outbox makes them (outbox.py);
  how many are pending or failed is counted over their index at a scrape, the rest delivered;
- `reviews`: escalations a person decided, and the microseconds from each one's opening to its
  decision: added when it is decided (queue.py), taken off when it is superseded.

`recount` makes them all again from the rows (migration 0020 fills them so in place).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, delete, func, select

from claims_crew.store.service_tables import webhook_deliveries
from claims_crew.store.sql import add_to
from claims_crew.store.tables import (
    attempts,
    claim_files,
    decisions,
    escalations,
    metric_totals,
    resolutions,
)
from claims_crew.vocabulary import AGENT_OF_TASK, parse_stamp


@dataclass(frozen=True)
class Total:
    """One row's share of a figure: what it adds (or, negated, takes off)."""

    figure: str
    a: str
    b: str
    n: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    micros: int = 0

    def times(self, sign: int) -> Total:
        return Total(
            self.figure,
            self.a,
            self.b,
            sign * self.n,
            sign * self.prompt_tokens,
            sign * self.completion_tokens,
            sign * self.micros,
        )


def decision_totals(outcome: str, rule: str, tokens_by_task: str, models: str) -> list[Total]:
    """A decision's share: one decision of (outcome, rule), and its attempt's usage by task."""
    shares = [Total("decisions", outcome, rule, 1)]
    agent_models: dict[str, str] = json.loads(models or "{}")
    for task, used in json.loads(tokens_by_task or "{}").items():
        agent = AGENT_OF_TASK.get(task)
        model = agent_models.get(agent, "") if agent is not None else ""
        shares.append(
            Total(
                "model_usage",
                task,
                model or "",
                int(used.get("calls", 0)),
                int(used.get("prompt", 0)),
                int(used.get("completion", 0)),
            )
        )
    return shares


def review_total(opened_at: str, decided_at: str) -> Total:
    """A person's decision of an escalation: one, and how long it waited."""
    waited = parse_stamp(decided_at) - parse_stamp(opened_at)
    micros = (waited.days * 86_400 + waited.seconds) * 1_000_000 + waited.microseconds
    return Total("reviews", "", "", 1, micros=micros)


def add(conn: Connection, shares: Iterable[Total], sign: int = 1) -> None:
    """Add the shares to the totals (sign -1: take them off), in the caller's transaction."""
    rows = [
        {
            "figure": share.figure,
            "a": share.a,
            "b": share.b,
            "n": share.n,
            "prompt_tokens": share.prompt_tokens,
            "completion_tokens": share.completion_tokens,
            "micros": share.micros,
        }
        for share in (share.times(sign) for share in shares)
    ]
    add_to(conn, metric_totals, ("figure", "a", "b"), rows)


def _decision_of(conn: Connection, claim_id: str) -> list[Total]:
    d, r, a = decisions.c, resolutions.c, attempts.c
    row = conn.execute(
        select(d.outcome, r.rule, a.tokens_by_task, a.models)
        .join(resolutions, r.id == d.resolution_id)
        .join(attempts, a.id == d.attempt_id)
        .where(d.claim_id == claim_id)
    ).first()
    return [] if row is None else decision_totals(row[0], row[1], row[2], row[3])


def _review_of(conn: Connection, claim_id: str) -> list[Total]:
    e = escalations.c
    row = conn.execute(
        select(e.opened_at, e.decided_at).where(
            e.claim_id == claim_id, e.state == "decided", e.decided_at.is_not(None)
        )
    ).first()
    return [] if row is None else [review_total(row.opened_at, row.decided_at)]


def count_decision(conn: Connection, claim_id: str) -> None:
    """Count the claim's decision, written just now in this transaction."""
    add(conn, _decision_of(conn, claim_id))


def uncount_claim(conn: Connection, claim_id: str) -> None:
    """Take the claim's decision, and its escalation's review if a person decided it, off the
    totals: they are about to be superseded in this transaction."""
    add(conn, [*_decision_of(conn, claim_id), *_review_of(conn, claim_id)], sign=-1)


def count_review(conn: Connection, opened_at: str, decided_at: str) -> None:
    """Count an escalation a person decided just now in this transaction."""
    add(conn, [review_total(opened_at, decided_at)])


def count_claim_file(conn: Connection, claim_id: str) -> None:
    """Count the claim, if the version of its file kept just now in this transaction is its
    first: claims are counted once, whatever versions of them are kept."""
    c = claim_files.c
    versions = conn.execute(select(func.count()).where(c.claim_id == claim_id)).scalar_one()
    if versions == 1:
        add(conn, [Total("claims", "", "", 1)])


def count_deliveries(conn: Connection, made: int) -> None:
    """Count the webhook deliveries made just now in this transaction (outbox.py)."""
    if made:
        add(conn, [Total("deliveries", "", "", made)])


def recount(conn: Connection) -> None:
    """Make every total again from the rows in force (a one-off: it reads every decision)."""
    conn.execute(delete(metric_totals))
    d, r, a, e = decisions.c, resolutions.c, attempts.c, escalations.c
    rows = conn.execute(
        select(d.outcome, r.rule, a.tokens_by_task, a.models)
        .join(resolutions, r.id == d.resolution_id)
        .join(attempts, a.id == d.attempt_id)
    )
    summed: dict[tuple[str, str, str], Total] = {}
    reviewed = conn.execute(
        select(e.opened_at, e.decided_at).where(e.state == "decided", e.decided_at.is_not(None))
    ).all()
    claims = conn.execute(select(func.count(func.distinct(claim_files.c.claim_id)))).scalar_one()
    deliveries = conn.execute(select(func.count()).select_from(webhook_deliveries)).scalar_one()
    counted = [Total("claims", "", "", int(claims)), Total("deliveries", "", "", int(deliveries))]
    shares = [share for share in counted if share.n]  # an empty store has no totals
    shares += [s for row in rows for s in decision_totals(row[0], row[1], row[2], row[3])]
    for share in [*shares, *(review_total(row[0], row[1]) for row in reviewed)]:
        key = (share.figure, share.a, share.b)
        was = summed.get(key, Total(*key, 0))
        summed[key] = Total(
            *key,
            was.n + share.n,
            was.prompt_tokens + share.prompt_tokens,
            was.completion_tokens + share.completion_tokens,
            was.micros + share.micros,
        )
    add(conn, summed.values())
