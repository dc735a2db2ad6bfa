"""Tokens, cost and time per level, over any set of decided claims (the rows of rows.py).

The definitions, all from each claim's decided attempt:

- **tokens by task**: each task's prompt and completion tokens and model calls, as CrewAI's LLM
  events reported them, summed over the claims; `claims` is how many claims ran the task.
- **cost**: each task's tokens at the price config/prices.yaml gives the model that ran it
  (the task's agent's model, ClaimRecord.models). A claim is priced when every task it ran has
  a price and reported its tokens; a claim with a model the table does not list, with calls but
  no tokens reported, or recorded before tokens were kept per task, has no cost: it is left out
  of every cost figure and counted in `unpriced`. Nothing is estimated. Without a price table
  there is no cost at all (null). A claim escalated before any model ran costs 0.
- **cost per claim**: the mean cost of the priced claims.
- **cost per automatic decision**: the mean cost of the claims decided with no person: ACCEPTED,
  PREFERRED and ADJUDICATED (the adjudicator is a model, so its verdict is automatic too).
- **cost per resolved conflict**: the mean cost of the claims whose agents' answers differed
  (`conflict` in metrics.py) and that were settled with no person: PREFERRED (only one side's
  evidence held, and the rules chose it) or ADJUDICATED (the adjudicator chose a side and its
  answer passed the checks). ACCEPTED needs the answers to agree, so it never settles a
  conflict; ESCALATED and ADJUDICATION_REQUIRED are left to a person.
- **time per level**: crew, resolver and adjudicator from the stages stamped in the pipeline,
  over the claims that went through each; person: from the escalation's opening to the review
  that decided it, over the reviewed escalations. Mean, median and longest, in seconds.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from claims_crew.prices import PriceTable
from claims_crew.report.rows import ClaimRow, TaskTokens
from claims_crew.vocabulary import (
    AGENT_OF_TASK,
    DECIDED_OUTCOMES,
    DECISION_LEVELS,
    TASKS,
    Outcome,
)

if TYPE_CHECKING:
    from claims_crew.store.report_facts import LevelSeconds

# Task name → the agent that runs it, for any task name a record holds.
AGENT_BY_TASK: dict[str, str] = {task: agent for task, agent in AGENT_OF_TASK.items()}
# The outcomes that settle a conflict with no person (see the module docstring).
RESOLVED_CONFLICT_OUTCOMES: tuple[Outcome, ...] = ("PREFERRED", "ADJUDICATED")


class Cost(BaseModel):
    """figure = total / claims: the mean cost of the priced claims in scope."""

    figure: float | None
    total: float
    claims: int = Field(description="Priced claims: the denominator.")
    unpriced: int = Field(description="Claims in scope with no cost (a model without a price).")


class TaskCost(BaseModel):
    """One task over the claims: its calls, its tokens and what they cost."""

    task: str
    claims: int = Field(description="Claims in which the task made a model call.")
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: Cost | None = Field(description="Null without a price table.")


class CostFigures(BaseModel):
    """Tokens and cost by task, and cost per decision (the module docstring defines each)."""

    currency: str | None = Field(description="The price table's currency; null: no table.")
    by_task: list[TaskCost]
    per_claim: Cost | None
    per_automatic_decision: Cost | None
    per_resolved_conflict: Cost | None
    resolved_conflict_outcomes: list[str] = list(RESOLVED_CONFLICT_OUTCOMES)
    unpriced_models: list[str] = Field(description="Models the claims used with no price.")


class LevelTime(BaseModel):
    """Seconds a decision spent at one level, over the claims that reached it."""

    level: str
    claims: int
    mean: float | None
    median: float | None
    longest: float | None


def task_cost(row: ClaimRow, task: str, used: TaskTokens, prices: PriceTable) -> float | None:
    """One task's cost in one claim; None when it cannot be known."""
    agent = AGENT_BY_TASK.get(task)
    model = row.models.get(agent) if agent is not None else None
    price = prices.price_of(model) if model is not None else None
    if price is None or (used.calls and not used.prompt + used.completion):
        return None
    return price.cost(used.prompt, used.completion)


def claim_cost(row: ClaimRow, prices: PriceTable) -> float | None:
    """The claim's cost; None when any task's cannot be known."""
    if row.model_calls and not row.tokens_by_task:
        return None  # recorded before tokens were kept per task
    costs = [task_cost(row, t, u, prices) for t, u in row.tokens_by_task.items()]
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def _cost(values: Sequence[tuple[float | None, int]]) -> Cost:
    """Costs, each of a row and the claims it stands for (its weight; its cost is theirs)."""
    total = sum(v for v, _ in values if v is not None)
    priced = sum(w for v, w in values if v is not None)
    return Cost(
        figure=round(total / priced, 9) if priced else None,
        total=round(total, 9),
        claims=priced,
        unpriced=sum(w for _, w in values) - priced,
    )


def _tasks(rows: Sequence[ClaimRow]) -> list[str]:
    seen = {t for r in rows for t in r.tokens_by_task}
    return [t for t in TASKS if t in seen] + sorted(seen.difference(TASKS))


def cost_figures(rows: Sequence[ClaimRow], prices: PriceTable | None) -> CostFigures:
    by_task = []
    for task in _tasks(rows):
        ran = [(r, r.tokens_by_task[task]) for r in rows if task in r.tokens_by_task]
        by_task.append(
            TaskCost(
                task=task,
                claims=sum(r.weight for r, _ in ran),
                calls=sum(u.calls for _, u in ran),
                prompt_tokens=sum(u.prompt for _, u in ran),
                completion_tokens=sum(u.completion for _, u in ran),
                cost=None
                if prices is None
                else _cost([(task_cost(r, task, u, prices), r.weight) for r, u in ran]),
            )
        )
    if prices is None:
        return CostFigures(
            currency=None,
            by_task=by_task,
            per_claim=None,
            per_automatic_decision=None,
            per_resolved_conflict=None,
            unpriced_models=[],
        )
    table = prices
    costs = {r.claim_id: claim_cost(r, table) for r in rows}

    def over(test: Callable[[ClaimRow], bool]) -> Cost:
        return _cost([(costs[r.claim_id], r.weight) for r in rows if test(r)])

    used = {m for r in rows for a, m in r.models.items() if _ran(r, a)}
    return CostFigures(
        currency=table.currency,
        by_task=by_task,
        per_claim=over(lambda r: True),
        per_automatic_decision=over(lambda r: r.outcome in DECIDED_OUTCOMES),
        per_resolved_conflict=over(
            lambda r: r.conflict and r.outcome in RESOLVED_CONFLICT_OUTCOMES
        ),
        unpriced_models=sorted(m for m in used if table.price_of(m) is None),
    )


def _ran(row: ClaimRow, agent: str) -> bool:
    return any(AGENT_BY_TASK.get(t) == agent for t in row.tokens_by_task)


def _level(level: str, seconds: Sequence[float]) -> LevelTime:
    return LevelTime(
        level=level,
        claims=len(seconds),
        mean=round(statistics.fmean(seconds), 6) if seconds else None,
        median=round(statistics.median(seconds), 6) if seconds else None,
        longest=round(max(seconds), 6) if seconds else None,
    )


def time_per_level(rows: Sequence[ClaimRow]) -> list[LevelTime]:
    levels = []
    for level in DECISION_LEVELS:
        if level == "person":
            seconds = [r.person_seconds for r in rows if r.person_seconds is not None]
        else:
            seconds = [r.stage_seconds[level] for r in rows if level in r.stage_seconds]
        levels.append(_level(level, seconds))
    return levels


def level_times(levels: Mapping[str, LevelSeconds]) -> list[LevelTime]:
    """Time per level as the store's facts give it (store/report_facts.py): the same figures
    as `time_per_level`, counted and summed in SQL."""
    times = []
    for level in DECISION_LEVELS:
        at = levels[level]
        times.append(
            LevelTime(
                level=level,
                claims=at.claims,
                mean=round(at.total / at.claims, 6) if at.claims else None,
                median=None if at.median is None else round(at.median, 6),
                longest=None if at.longest is None else round(at.longest, 6),
            )
        )
    return times


class AgentUsage(BaseModel):
    """One agent's model calls, tokens and (priced) cost over the claims; what /metrics shows."""

    agent: str
    calls: int = 0
    tokens: int = 0
    cost: float = Field(0.0, description="Of the tasks with a known cost (task_cost).")


def usage_by_agent(rows: Sequence[ClaimRow], prices: PriceTable | None) -> list[AgentUsage]:
    """Each agent's calls, tokens and cost, summed over its tasks in every claim; a task no
    agent owns counts under its own name. Cost counts only what task_cost can know."""
    found: dict[str, AgentUsage] = {}
    for row in rows:
        for task, used in row.tokens_by_task.items():
            agent = AGENT_BY_TASK.get(task, task)
            usage = found.setdefault(agent, AgentUsage(agent=agent))
            usage.calls += used.calls
            usage.tokens += used.prompt + used.completion
            cost = None if prices is None else task_cost(row, task, used, prices)
            usage.cost += cost or 0.0
    return [found[a] for a in sorted(found)]
