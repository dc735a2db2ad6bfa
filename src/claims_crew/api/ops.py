"""For operations: /healthz, /readyz and /metrics, at the root of the review page's app.

- /healthz: 200 {"status": "ok"} while the process answers at all (a liveness probe).
- /readyz: 200 when the store answers and its schema is at the migrations' head (store.HEAD);
  else 503 {"status": "not ready"}, so a load balancer sends no request to a server whose
  database is gone or not yet migrated. The probe answers anyone, so why is never in the
  answer (the database's address, user and driver's words were, once): it goes to the log.
- /metrics: the Prometheus text format, made by prometheus-client from a collector that reads
  the store at each scrape, so every server process, and every worker, is counted alike. With
  CLAIMS_CREW_METRICS_TOKEN set, a scrape must send it as `Authorization: Bearer` (else 401
  as problem details); unset, /metrics is open, as the probes are.

The figures and where each comes from (Store.metric_figures, in one snapshot, unless named):
  claims_crew_claims{state}                 as the API states each claim (claim_states.py)
  claims_crew_decisions_total{outcome,rule} the decisions in force, as the report counts them
  claims_crew_escalations_open, _overdue    as the desk's figures count them
  claims_crew_review_seconds (sum, count)   escalation opened → decided by a person
  claims_crew_model_calls_total{agent}      each decided claim's decided attempt, as the
  claims_crew_model_tokens_total{agent}     report's usage by agent counts them; cost at the
  claims_crew_model_cost_total{agent,currency}  price table's prices, in its currency; only
                                            with config/prices.yaml
  claims_crew_webhook_deliveries{status}    as Store.delivery_counts counts them
  claims_crew_queue_depth                   claims pending in the queue, held or not

No figure reads every claim: they are totals the store keeps as it writes, and counts over
indexes (store/metric_counts.py), so a scrape costs about the same at any size of store.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Iterator, Sequence

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    Metric,
    SummaryMetricFamily,
)
from prometheus_client.registry import Collector

from claims_crew.api.problems import problem_response
from claims_crew.desk.clocks import today
from claims_crew.errors import StoreError
from claims_crew.prices import load_prices
from claims_crew.report.usage import AGENT_BY_TASK
from claims_crew.store import HEAD, Store
from claims_crew.store.metric_counts import MetricFigures, ModelUsage

_log = logging.getLogger(__name__)

# Probes answer whatever Host they are sent with (review/web.py): a load balancer or an
# orchestrator calls them by the server's address, and they tell nothing but up and ready.
PROBE_PATHS = frozenset({"/healthz", "/readyz"})


def metrics_token() -> str | None:
    """CLAIMS_CREW_METRICS_TOKEN as it is set now (None: /metrics is open)."""
    from claims_crew.settings import current

    token: str | None = current().claims_crew_metrics_token
    return token


def scrape_allowed(authorization: str | None, token: str | None) -> bool:
    """Whether a scrape with this Authorization header may read /metrics: any, without a
    token; else only `Bearer <token>`, compared in constant time."""
    if token is None:
        return True
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode("utf-8"), token.encode("utf-8"))


def not_ready(store: Store) -> str | None:
    """Why the store is not ready to serve; None when it is."""
    try:
        revision = store.schema_revision()
    except StoreError as exc:
        return str(exc)
    if revision != HEAD:
        return f"the store's schema is at {revision or 'no revision'}; this version needs {HEAD}"
    return None


class StoreCollector(Collector):
    """Every figure read from the store at the moment of the scrape, in one snapshot."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterator[Metric]:
        store = self.store
        figures = store.metric_figures(today().isoformat())
        claims = GaugeMetricFamily("claims_crew_claims", "Claims by state.", labels=["state"])
        for state, n in figures.claims.items():
            claims.add_metric([state], n)
        yield claims
        decisions = CounterMetricFamily(
            "claims_crew_decisions", "Decisions by outcome and rule.", labels=["outcome", "rule"]
        )
        for (outcome, rule), n in sorted(figures.decisions.items()):
            decisions.add_metric([outcome, rule], n)
        yield decisions
        yield from _escalations(figures)
        yield from _usage(figures.usage)
        deliveries = GaugeMetricFamily(
            "claims_crew_webhook_deliveries", "Webhook deliveries by status.", labels=["status"]
        )
        for status, n in sorted(figures.deliveries.items()):
            deliveries.add_metric([status], n)
        yield deliveries
        yield GaugeMetricFamily(
            "claims_crew_queue_depth",
            "Claims pending in the queue, waiting or in a worker's hands.",
            value=figures.queue_depth,
        )


def _escalations(figures: MetricFigures) -> Iterator[Metric]:
    yield GaugeMetricFamily(
        "claims_crew_escalations_open",
        "Escalations waiting for a person.",
        figures.escalations_open,
    )
    yield GaugeMetricFamily(
        "claims_crew_escalations_overdue",
        "Open escalations past their last day to decide.",
        figures.escalations_overdue,
    )
    yield SummaryMetricFamily(
        "claims_crew_review_seconds",
        "Seconds from an escalation's opening to a person's decision.",
        count_value=figures.reviewed,
        sum_value=figures.review_seconds,
    )


def _usage(usage: Sequence[ModelUsage]) -> Iterator[Metric]:
    calls = CounterMetricFamily(
        "claims_crew_model_calls", "Model calls by agent, decided attempts.", labels=["agent"]
    )
    tokens = CounterMetricFamily(
        "claims_crew_model_tokens", "Model tokens by agent, decided attempts.", labels=["agent"]
    )
    prices = load_prices()
    # The table's prices are in its own currency, so the currency is a label, not a unit in
    # the name: a team pricing in EUR is not told it spent dollars.
    cost = CounterMetricFamily(
        "claims_crew_model_cost",
        "Model cost by agent at config/prices.yaml's prices (none without the table).",
        labels=["agent", "currency"],
    )
    by_agent: dict[str, tuple[int, int, float]] = {}  # agent → calls, tokens, cost
    for used in usage:
        if not (used.calls or used.prompt_tokens or used.completion_tokens):
            continue  # every claim it counted was superseded
        n, spent_tokens, spent = by_agent.get(AGENT_BY_TASK.get(used.task, used.task), (0, 0, 0.0))
        # A price is linear in tokens, so the cost of the totals is the claims' costs summed.
        price = prices.price_of(used.model) if prices is not None and used.model else None
        by_agent[AGENT_BY_TASK.get(used.task, used.task)] = (
            n + used.calls,
            spent_tokens + used.prompt_tokens + used.completion_tokens,
            spent + (price.cost(used.prompt_tokens, used.completion_tokens) if price else 0.0),
        )
    for agent, (n, spent_tokens, spent) in sorted(by_agent.items()):
        calls.add_metric([agent], n)
        tokens.add_metric([agent], spent_tokens)
        if prices is not None:
            cost.add_metric([agent, prices.currency], spent)
    yield from (calls, tokens, cost)


def ops_routes(store: Store) -> APIRouter:
    """/healthz, /readyz and /metrics over `store` (no session: they are GETs and change
    nothing)."""
    router = APIRouter()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(store))

    @router.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @router.get("/readyz")
    def readyz() -> Response:
        why = not_ready(store)
        if why is None:
            return JSONResponse({"status": "ready", "schema": HEAD})
        _log.warning("/readyz: not ready: %s", why)
        return JSONResponse({"status": "not ready"}, status_code=503)

    @router.get("/metrics")
    def metrics(request: Request) -> Response:
        if not scrape_allowed(request.headers.get("authorization"), metrics_token()):
            return problem_response(
                401,
                "unauthorized",
                "/metrics needs Authorization: Bearer with CLAIMS_CREW_METRICS_TOKEN",
                "/metrics",
                {"WWW-Authenticate": "Bearer"},
            )
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    return router
