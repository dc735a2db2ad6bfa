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

The figures and where each comes from (the report's own reads where it has them):
  claims_crew_claims{state}                 Store.claim_states, as the API states each claim
  claims_crew_decisions_total{outcome,rule} the report's rows (report/rows.load_rows)
  claims_crew_escalations_open, _overdue    the desk's figures (report/desk.desk_figures)
  claims_crew_review_seconds (sum, count)   escalation opened → decided by a person
  claims_crew_model_calls_total{agent}      the report's usage by agent (report/usage.py) over
  claims_crew_model_tokens_total{agent}     each decided claim's decided attempt; cost at the
  claims_crew_model_cost_total{agent,currency}  price table's prices, in its currency; only
                                            with config/prices.yaml
  claims_crew_webhook_deliveries{status}    Store.delivery_counts
  claims_crew_queue_depth                   claims pending in the queue, held or not

Each scrape is a few reads of the whole store (the report's one pass among them): scrape it
every 15 s or more, not every second.
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
from claims_crew.report.desk import desk_figures
from claims_crew.report.rows import ClaimRow, load_rows
from claims_crew.report.usage import usage_by_agent
from claims_crew.store import HEAD, EscalationClock, Store
from claims_crew.vocabulary import CLAIM_STATES, parse_stamp

_log = logging.getLogger(__name__)

# Probes answer whatever Host they are sent with (review/web.py): a load balancer or an
# orchestrator calls them by the server's address, and they tell nothing but up and ready.
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
# Every claim in one read (the store's LIMIT, as large as both engines take).
ALL_CLAIMS = 2**62


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


def state_counts(store: Store) -> dict[str, int]:
    """How many claims are in each state, as the API states each (Store.claim_states)."""
    counts: dict[str, int] = dict.fromkeys(CLAIM_STATES, 0)
    for claim in store.claim_states(limit=ALL_CLAIMS):
        counts[claim.state] += 1
    return counts


def _review_seconds(clocks: Sequence[EscalationClock]) -> tuple[int, float]:
    """How many escalations a person decided, and the seconds from opening to decision."""
    waits = [
        (parse_stamp(c.decided_at) - parse_stamp(c.opened_at)).total_seconds()
        for c in clocks
        if c.state == "decided" and c.decided_at is not None
    ]
    return len(waits), sum(waits)


class StoreCollector(Collector):
    """Every figure read from the store at the moment of the scrape."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterator[Metric]:
        store = self.store
        claims = GaugeMetricFamily("claims_crew_claims", "Claims by state.", labels=["state"])
        for state, n in state_counts(store).items():
            claims.add_metric([state], n)
        yield claims
        rows = load_rows(store)
        decisions = CounterMetricFamily(
            "claims_crew_decisions", "Decisions by outcome and rule.", labels=["outcome", "rule"]
        )
        counted: dict[tuple[str, str], int] = {}
        for row in rows:
            counted[(row.outcome, row.rule)] = counted.get((row.outcome, row.rule), 0) + 1
        for (outcome, rule), n in sorted(counted.items()):
            decisions.add_metric([outcome, rule], n)
        yield decisions
        yield from self._escalations()
        yield from _usage(rows)
        deliveries = GaugeMetricFamily(
            "claims_crew_webhook_deliveries", "Webhook deliveries by status.", labels=["status"]
        )
        for status, n in sorted(store.delivery_counts().items()):
            deliveries.add_metric([status], n)
        yield deliveries
        yield GaugeMetricFamily(
            "claims_crew_queue_depth",
            "Claims pending in the queue, waiting or in a worker's hands.",
            value=store.queue_counts().pending,
        )

    def _escalations(self) -> Iterator[Metric]:
        clocks = self.store.escalation_clocks()
        figures = desk_figures(clocks, today())
        yield GaugeMetricFamily(
            "claims_crew_escalations_open", "Escalations waiting for a person.", figures.open
        )
        yield GaugeMetricFamily(
            "claims_crew_escalations_overdue",
            "Open escalations past their last day to decide.",
            figures.overdue,
        )
        count, total = _review_seconds(clocks)
        yield SummaryMetricFamily(
            "claims_crew_review_seconds",
            "Seconds from an escalation's opening to a person's decision.",
            count_value=count,
            sum_value=total,
        )


def _usage(rows: Sequence[ClaimRow]) -> Iterator[Metric]:
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
    for usage in usage_by_agent(rows, prices):
        calls.add_metric([usage.agent], usage.calls)
        tokens.add_metric([usage.agent], usage.tokens)
        if prices is not None:
            cost.add_metric([usage.agent, prices.currency], usage.cost)
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
