"""The metrics of the disagreement and coverage report, over any set of decided claims.

Every rate is a `Metric`: `figure = count / denominator` (null when the denominator is 0), so a
reader can always see how many claims a percentage stands on. Per-claim costs are an `Amount`:
`figure = count / denominator`, the total divided by the claims, i.e. the mean.

The definitions (all over decided claims, i.e. rows of the store's `decisions` table, optionally
those decided on or after `--since`):

- **conflict**: both the policy and the fraud agent's answers parsed and they differ.
  Denominator: claims where both answers parsed (a claim escalated before any model ran, or
  with an unparsed answer, has nothing to compare).
- **material conflict**: a conflict whose automatic outcome differs from what each agent alone
  would have decided, an agent alone deciding its own answer. Because the two answers differ,
  an automatic answer (ACCEPTED, PREFERRED, ADJUDICATED) always equals one of them, so a
  material conflict is exactly a conflict that the rules and the adjudicator could not settle:
  ESCALATED or ADJUDICATION_REQUIRED, gates included. A human's later decision does not change
  it. Same denominator as conflict.
- **automatic**: ACCEPTED or PREFERRED, decided by the rules alone, over all claims. ADJUDICATED
  is a model's reading of the words, so it is not in this figure; `automatic_with_adjudicator`
  adds it.
- **adjudicator**: claims where the adjudicator was asked, over all claims;
  `adjudicator_outcomes` splits them by what it did (`chose_policy`, `chose_fraud`, `escalate`,
  `invalid`: its answer failed the checks), over the claims where it was asked. A dispute left
  unasked (adjudication disabled) is the outcome ADJUDICATION_REQUIRED.
- **escalated**: outcome ESCALATED, over all claims; `escalation_reasons` counts the escalated
  claims carrying each reason code, over all claims (a claim may carry several codes).
- **parse errors**, per agent (intake, policy, fraud): answers that did not parse, over the
  claims where that agent's task produced an answer (an early policy escalation runs none).
- **abstentions**, per reviewing agent (policy, fraud): answers `uncertain` (the agent said it
  cannot tell), over the claims where that agent's answer parsed; `abstention_reasons` splits
  each agent's abstentions by the reason it gave.
- **evidence requests**: claims whose conflict over open facts asked intake one targeted
  question (resolution.yaml `targeted_evidence`), over all claims. **evidence resolution**: of
  those, the claims the answer settled (a quoted fact checked out and the conflict rule no longer
  fired: the claim agreed, went to the adjudicator, or was gated), over the claims where a
  question was asked.
- **debate rounds**: claims whose dispute got a debate round before the adjudicator
  (resolution.yaml `debate.rounds: 1`), over all claims. **debate changed**: of those, the
  claims where a side revised its answer, over the claims with a round. **debate calls** and
  **debate tokens**: the rebuttal tasks' model calls and tokens, totalled over the claims with a
  round; the figure is the mean per round.
- **model calls, tokens, seconds**: per claim, from the decided attempt; tokens are prompt plus
  completion as the provider reported them; seconds run from the claim's start to its record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from claims_crew.report.rows import ClaimRow
from claims_crew.vocabulary import (
    ABSTAIN_REASONS,
    ABSTENTION,
    ADJUDICATOR_OUTCOMES,
    ANSWERING_AGENTS,
    AUTOMATIC_OUTCOMES,
    DECIDED_OUTCOMES,
    FALLBACK_NOTE,
    OUTCOMES,
    REBUTTAL_TASK_OF,
    SIDES,
)

REBUTTAL_TASKS = frozenset(REBUTTAL_TASK_OF.values())


class Metric(BaseModel):
    """figure = count / denominator; null when the denominator is 0."""

    figure: float | None
    count: int
    denominator: int


class Amount(BaseModel):
    """figure = count / denominator: a total over claims, and its mean per claim."""

    figure: float | None
    count: float
    denominator: int


def metric(count: int, denominator: int) -> Metric:
    return Metric(
        figure=round(count / denominator, 6) if denominator else None,
        count=count,
        denominator=denominator,
    )


def amount(total: float, denominator: int) -> Amount:
    return Amount(
        figure=round(total / denominator, 6) if denominator else None,
        count=round(total, 6),
        denominator=denominator,
    )


class Figures(BaseModel):
    """Every metric over one set of claims; the module docstring defines each."""

    claims: int
    outcomes: dict[str, Metric]
    conflict: Metric
    material_conflict: Metric
    automatic: Metric
    automatic_with_adjudicator: Metric
    adjudicator: Metric
    adjudicator_outcomes: dict[str, Metric]
    escalated: Metric
    escalation_reasons: dict[str, Metric]
    parse_errors: dict[str, Metric]
    evidence_requests: Metric
    evidence_resolution: Metric
    debate_rounds: Metric
    debate_changed: Metric
    debate_calls: Amount
    debate_tokens: Amount
    abstentions: dict[str, Metric]
    abstention_reasons: dict[str, dict[str, Metric]]
    model_calls: Amount
    tokens: Amount
    seconds: Amount
    # Claims decided on CLAIMS_CREW_FALLBACK_MODEL after their provider failed for good.
    fallback: Metric

    def headline(self) -> list[tuple[str, Metric]]:
        """The six rates every view of the report leads with, labelled."""
        return [
            ("conflict (answers differ)", self.conflict),
            ("material conflict", self.material_conflict),
            ("automatic (ACCEPTED + PREFERRED)", self.automatic),
            ("automatic incl. ADJUDICATED", self.automatic_with_adjudicator),
            ("adjudicator asked", self.adjudicator),
            ("escalated", self.escalated),
        ]


def count_where(rows: Iterable[ClaimRow], test: Callable[[ClaimRow], bool]) -> int:
    """The claims among `rows` that pass `test`, each row counted for the claims it stands for."""
    return sum(r.weight for r in rows if test(r))


def size(rows: Iterable[ClaimRow]) -> int:
    """The claims `rows` stand for (a row may stand for several: ClaimRow.weight)."""
    return sum(r.weight for r in rows)


def tally(rows: Iterable[ClaimRow], key: Callable[[ClaimRow], Any]) -> Counter[Any]:
    """How many claims have each value of `key`."""
    counts: Counter[Any] = Counter()
    for r in rows:
        counts[key(r)] += r.weight
    return counts


def figures(rows: Sequence[ClaimRow]) -> Figures:
    n = size(rows)
    outcome_counts = tally(rows, lambda r: r.outcome)
    compared = count_where(rows, lambda r: r.compared)
    asked = [r for r in rows if r.adjudicator is not None]
    questioned = [r for r in rows if r.targeted is not None]
    debated = [r for r in rows if r.debate is not None]
    rebuttals = [u for r in debated for t, u in r.tokens_by_task.items() if t in REBUTTAL_TASKS]
    adjudicated = tally(asked, lambda r: r.adjudicator)
    escalated = [r for r in rows if r.outcome == "ESCALATED"]
    reasons: Counter[str] = Counter()
    for r in escalated:
        for code in dict.fromkeys(r.reason_codes):
            reasons[code] += r.weight
    parse_errors = {}
    for agent in ANSWERING_AGENTS:
        ran = [r for r in rows if r.parse_error(agent) is not None]
        failed = [r for r in ran if r.parse_error(agent)]
        parse_errors[agent] = metric(size(failed), size(ran))
    abstentions, abstention_reasons = {}, {}
    for side in SIDES:
        answered = [r for r in rows if r.side(side).parsed]
        quiet = [r for r in answered if r.side(side).answer == ABSTENTION]
        abstentions[side] = metric(size(quiet), size(answered))
        why: Counter[str | None] = Counter()
        for r in quiet:
            why[r.side(side).abstain_reason] += r.weight
        abstention_reasons[side] = {
            code: metric(why[code], size(quiet)) for code in ABSTAIN_REASONS
        }
    return Figures(
        claims=n,
        outcomes={o: metric(outcome_counts[o], n) for o in OUTCOMES},
        conflict=metric(count_where(rows, lambda r: r.conflict), compared),
        material_conflict=metric(count_where(rows, lambda r: r.material_conflict), compared),
        automatic=metric(sum(outcome_counts[o] for o in AUTOMATIC_OUTCOMES), n),
        automatic_with_adjudicator=metric(sum(outcome_counts[o] for o in DECIDED_OUTCOMES), n),
        adjudicator=metric(size(asked), n),
        adjudicator_outcomes={o: metric(adjudicated[o], size(asked)) for o in ADJUDICATOR_OUTCOMES},
        escalated=metric(size(escalated), n),
        escalation_reasons={code: metric(c, n) for code, c in sorted(reasons.items())},
        parse_errors=parse_errors,
        evidence_requests=metric(size(questioned), n),
        evidence_resolution=metric(
            count_where(questioned, lambda r: r.targeted == "settled"), size(questioned)
        ),
        debate_rounds=metric(size(debated), n),
        debate_changed=metric(count_where(debated, lambda r: r.debate == "changed"), size(debated)),
        debate_calls=amount(sum(u.calls for u in rebuttals), size(debated)),
        debate_tokens=amount(sum(u.prompt + u.completion for u in rebuttals), size(debated)),
        abstentions=abstentions,
        abstention_reasons=abstention_reasons,
        model_calls=amount(sum(r.model_calls for r in rows), n),
        tokens=amount(sum(r.tokens for r in rows), n),
        seconds=amount(sum(r.seconds for r in rows), n),
        fallback=metric(count_where(rows, lambda r: FALLBACK_NOTE in r.models), n),
    )
