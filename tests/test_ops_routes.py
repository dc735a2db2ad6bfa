"""/healthz, /readyz and /metrics (api/ops.py) on the review page's app, on both engines:
/metrics parsed with prometheus-client's own parser, each figure equal to the store's count;
/readyz 503 {"status": "not ready"} on a store behind on its migrations or out of reach, saying
why only in the server's log."""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import event, select, text

from claims_crew.desk.clocks import today
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review.web import create_app
from claims_crew.store import HEAD, Store
from claims_crew.store.decision_rows import Basis
from claims_crew.store.engine import open_engine
from claims_crew.store.metric_totals import recount
from claims_crew.store.schema import revisions
from claims_crew.store.tables import metric_totals
from claims_crew.webhook_events import WEBHOOK_EVENTS
from tests.support.report import PRICES, known_store
from tests.support.store import record_for, water_loaded
from tests.support.web import client

pytestmark = pytest.mark.usefixtures("engine")


def samples(page: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the exposition: (name, sorted labels) → value."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(page)
        for s in family.samples
    }


def labelled(found: dict[Any, float], name: str, label: str) -> dict[str, float]:
    return {dict(k)[label]: v for (n, k), v in found.items() if n == name}


@pytest.fixture
def busy(sample_library: PolicyLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """The report's thirteen known decisions, three claims in the queue (waiting, held,
    parked) and their webhook deliveries (one delivered, one failed), with a price table."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "prices.yaml").write_text(yaml.safe_dump(PRICES), encoding="utf-8")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(config))
    store = known_store(sample_library, tmp_path / "claims")
    for claim_id in ("Q-1", "Q-2", "Q-3"):
        store.enqueue(water_loaded(tmp_path / "queue", claim_id))
    store.take("worker-a")  # Q-1, the oldest: under review
    store.take("worker-b")
    assert store.fail("Q-2", "worker-b", "broke", most=1)  # parked at once: failed
    store.fan_out({"core": frozenset(WEBHOOK_EVENTS)})
    first, second = store.take_deliveries("sender", 2, 60)
    store.delivered(first.id, "sender", 204)
    store.retry_later(second.id, "sender", 500, "answered 500", None)
    return store


def decision_totals(found: dict[Any, float]) -> dict[tuple[str, str], float]:
    """claims_crew_decisions_total's samples by (outcome, rule)."""
    return {
        (dict(k)["outcome"], dict(k)["rule"]): v
        for (n, k), v in found.items()
        if n == "claims_crew_decisions_total"
    }


def test_metrics_match_the_store(busy: Store) -> None:
    response = client(busy).get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    found = samples(response.text)

    assert labelled(found, "claims_crew_claims", "state") == {
        "queued": 1,
        "under_review": 1,
        "failed": 1,
        "escalated": busy.open_count(),
        "decided": len(busy.decisions()) - busy.open_count(),
    }
    assert busy.open_count() == 2  # R09 and R13: nobody reviewed them

    counted = Counter((c.outcome, c.resolution["rule"]) for c in busy.decided_claims())
    decisions = decision_totals(found)
    assert decisions == counted and sum(decisions.values()) == 13

    assert found[("claims_crew_escalations_open", ())] == 2
    overdue = busy.open_count(overdue_before=today().isoformat())
    assert found[("claims_crew_escalations_overdue", ())] == overdue
    reviewed = [c for c in busy.escalation_clocks() if c.state == "decided"]
    assert found[("claims_crew_review_seconds_count", ())] == len(reviewed) == 7
    assert found[("claims_crew_review_seconds_sum", ())] >= 0

    # tests/test_report_usage.py: intake 1 call of 80 + 20 tokens in each of the twelve claims
    # that reached the agents, policy 2 of 160 + 40, fraud 1 of 120 + 30; the adjudicator 1 of
    # 40 + 10 in R07 and R09.
    calls = labelled(found, "claims_crew_model_calls_total", "agent")
    tokens = labelled(found, "claims_crew_model_tokens_total", "agent")
    cost = labelled(found, "claims_crew_model_cost_total", "agent")
    currencies = labelled(found, "claims_crew_model_cost_total", "currency")
    assert set(currencies) == {"EUR"}  # the table's currency, whatever it is
    assert calls == {"intake": 12, "policy": 24, "fraud": 12, "adjudicator": 2}
    assert tokens == {"intake": 1200, "policy": 2400, "fraud": 1800, "adjudicator": 100}
    assert cost == pytest.approx({"intake": 19.2, "policy": 38.4, "fraud": 28.8, "adjudicator": 10})

    deliveries = labelled(found, "claims_crew_webhook_deliveries", "status")
    assert deliveries == busy.delivery_counts()
    assert (deliveries["delivered"], deliveries["failed"]) == (1, 1)
    assert deliveries["pending"] == len(busy.deliveries("pending")) > 0
    assert found[("claims_crew_queue_depth", ())] == busy.queue_counts().pending == 2


def test_an_empty_store_has_zeros_and_no_cost_without_a_price_table() -> None:
    found = samples(client(Store()).get("/metrics").text)
    assert set(labelled(found, "claims_crew_claims", "state").values()) == {0}
    assert labelled(found, "claims_crew_model_cost_total", "agent") == {}
    assert found[("claims_crew_queue_depth", ())] == 0


def test_healthz_and_readyz_answer_any_host_and_metrics_only_ours() -> None:
    store = Store()
    page = TestClient(create_app(store, ["claims.example.com"]), base_url="http://10.0.0.5:8000")
    assert page.get("/healthz").json() == {"status": "ok"}
    ready = page.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "ready", "schema": HEAD}
    assert page.get("/metrics").status_code == 403  # its figures are for our own Host only
    assert page.get("/").status_code == 403


NOT_READY = {"status": "not ready"}


def test_readyz_is_not_ready_when_the_store_is_behind_its_migrations(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = Store()
    earlier = revisions()[-2]
    with store.write() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": earlier})
    with caplog.at_level(logging.WARNING, logger="claims_crew.api.ops"):
        response = client(store).get("/readyz")
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/json"
    assert response.json() == NOT_READY
    # Why is the server's to know: in its log, not in the answer.
    assert earlier in caplog.text and HEAD in caplog.text


def test_readyz_says_nothing_of_the_database_when_it_does_not_answer(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store()
    page = client(store)
    assert page.get("/readyz").status_code == 200
    store.engine.dispose()
    folder = tmp_path / "no-such-folder-xq"
    gone = (
        f"sqlite:///{folder}/claims.sqlite"
        if engine == "sqlite"
        else "postgresql+psycopg://nobodyxq:x@127.0.0.1:9/claimsxq?connect_timeout=2"
    )
    monkeypatch.setattr(store, "engine", open_engine(gone))
    with caplog.at_level(logging.WARNING, logger="claims_crew.api.ops"):
        response = page.get("/readyz")
    assert response.status_code == 503
    assert response.json() == NOT_READY
    # Nothing of where the database is, who connects or what the driver said.
    for secret in ("xq", "127.0.0.1", "psycopg", "sqlite", "connect", "answer"):
        assert secret not in response.text.lower()
    assert "does not answer" in caplog.text  # the reason, for whoever runs the server
    assert page.get("/healthz").status_code == 200  # the process itself is still up


def test_metrics_needs_the_scrape_token_when_one_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_CREW_METRICS_TOKEN", "scrape-me-7f3a")
    page = client(Store())
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "scrape-me-7f3a"}):
        refused = page.get("/metrics", headers=headers)
        assert refused.status_code == 401
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.headers["www-authenticate"] == "Bearer"
        assert refused.json()["code"] == "unauthorized"
        assert "scrape-me" not in refused.text and "claims_crew_" not in refused.text
    allowed = page.get("/metrics", headers={"Authorization": "Bearer scrape-me-7f3a"})
    assert allowed.status_code == 200 and "claims_crew_queue_depth" in allowed.text
    # The probes stay open: a load balancer has no token.
    assert page.get("/healthz").status_code == page.get("/readyz").status_code == 200


def totals(store: Store) -> dict[tuple[str, str, str], tuple[int, ...]]:
    """The totals /metrics reads, but those all of whose claims were superseded (all zeros)."""
    with store.read() as conn:
        rows = conn.execute(select(metric_totals)).all()
    return {(r[0], r[1], r[2]): tuple(r[3:]) for r in rows if any(r[3:])}


def test_totals_kept_as_the_store_writes_are_those_recounted_from_its_rows(
    busy: Store, sample_library: PolicyLibrary, tmp_path: Path
) -> None:
    # A claim a person decided is decided again on a new reading: its decision, escalation and
    # review are superseded, and their share taken off the totals in the same transaction.
    (again,) = [c.claim_id for c in busy.decided_claims() if c.review is not None][:1]
    loaded = water_loaded(tmp_path / "again", again)
    seq = busy.audit_entries(again)[-1].seq
    busy.record_revalidation(record_for(loaded, sample_library), loaded, Basis(), "new", [], seq)

    found = samples(client(busy).get("/metrics").text)
    counted = Counter((c.outcome, c.resolution["rule"]) for c in busy.decided_claims())
    decisions = decision_totals(found)
    assert decisions == counted and sum(decisions.values()) == 13
    reviewed = [c for c in busy.escalation_clocks() if c.state == "decided"]
    assert found[("claims_crew_review_seconds_count", ())] == len(reviewed) == 6
    states = labelled(found, "claims_crew_claims", "state")
    assert states["escalated"] == busy.open_count() == 3  # the claim decided again waits
    assert sum(states.values()) == 16  # thirteen decided, three queued

    kept = totals(busy)
    with busy.write() as conn:
        recount(conn)
    assert totals(busy) == kept
    assert kept[("claims", "", "")] == (16, 0, 0, 0)


def statements_of_a_scrape(store: Store) -> list[str]:
    """Every query one scrape of /metrics sends the store (not its transactions' own)."""
    sent: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            sent.append(" ".join(statement.split()))

    page = client(store)
    event.listen(store.engine, "before_cursor_execute", seen)
    try:
        assert page.get("/metrics").status_code == 200
    finally:
        event.remove(store.engine, "before_cursor_execute", seen)
    return sent


def test_a_scrape_reads_totals_and_counts_not_every_claim(busy: Store, tmp_path: Path) -> None:
    empty = Store(tmp_path / "empty.sqlite")
    sent = statements_of_a_scrape(busy)
    # As many statements over sixteen claims as over none, and none reads the decided claims
    # whole (their attempts, agents' answers or resolutions) or lists every claim's file.
    assert len(sent) == len(statements_of_a_scrape(empty))
    for table in ("attempts", "agent_outputs", "resolutions", "reviews"):
        assert not [s for s in sent if f"FROM {table}" in s or f"JOIN {table}" in s], table
    every_file = [s for s in sent if "FROM claim_files" in s and "claim_files.claim_id =" not in s]
    assert every_file == []
