"""claims-crew as a claims system meets it, end to end, on SQLite and on PostgreSQL:
`claims-crew serve --work 1` in its own process, driven with httpx over 127.0.0.1, the crew's
model the scripted server, and the webhooks received by a real local HTTP receiver that checks
each signature with its own lines (tests/support/receiver.py).

Three sample claims are submitted with a client token (C-1051 with its PDF loss notice), one
submit is retried with the same Idempotency-Key, each claim is followed until decided or
escalated, a letter is fetched as PDF and Markdown. The receiver is down (not listening) for the
first tries, and the server is stopped with the deliveries pending and started again: after the
restart each event reaches the receiver exactly once. `claims-crew webhooks deliveries --json`
and /metrics (read with prometheus-client's own parser) agree with the store.

The claims are the cheapest of the sample inbox: five model calls each (intake once, each
reviewer a look-up and an answer), no adjudicator, no targeted question.
"""

from __future__ import annotations

import io
import json
import mimetypes
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families
from pypdf import PdfReader
from sqlalchemy import func, select

from claims_crew.cli import main
from claims_crew.store import Store
from claims_crew.store import tables as t
from claims_crew.webhook_events import WEBHOOK_EVENTS
from tests.support.openai_server import OpenAIServer, StartServer
from tests.support.provider import agent_of
from tests.support.receiver import Receiver, new_secret
from tests.support.sample_inbox import INBOX, start
from tests.support.service import Service, token_from, webhook_config
from tests.support.work_processes import wait_for

# Processes (the server, its worker) and a PostgreSQL database: slow on every engine.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("engine", "warm_index")]

# What each claim's scripted review ends in, and the event it is announced by.
EXPECTED = {
    "C-1046": ("decided", "claim.decided"),
    "C-1051": ("decided", "claim.decided"),  # submitted with its PDF loss notice
    "C-3001": ("escalated", "claim.escalated"),  # both reviewers abstain
}
RETRIED = "C-1046"
REVIEW_S = 180.0  # the worker's start (CrewAI's imports) and three reviews, on a loaded machine
DELIVER_S = 60.0
POLL_S = 1.0  # one listing a second: well within the 120 calls a minute a client may make
UNAVAILABLE = 2  # deliveries the receiver answers 503 once it listens again
# /metrics samples by name and labels.
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output + str(result.exception)
    return result.output


def submission(claim_id: str) -> list[tuple[str, tuple[str, bytes, str]]]:
    """The sample claim's JSON and each attachment it names, as multipart parts."""
    claim = INBOX / f"{claim_id}.json"
    parts = [("claim", (claim.name, claim.read_bytes(), "application/json"))]
    for name in json.loads(claim.read_bytes()).get("attachments", []):
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        parts.append(("attachments", (name, (INBOX / name).read_bytes(), kind)))
    return parts


def submit(http: httpx.Client, claim_id: str) -> httpx.Response:
    key = f"submit-{claim_id}"
    return http.post("/claims", files=submission(claim_id), headers={"Idempotency-Key": key})


def submit_all(http: httpx.Client) -> None:
    """Each claim submitted once, and one submit retried with the same Idempotency-Key: the
    same answer, and the claim kept and queued once."""
    first: dict[str, httpx.Response] = {}
    for claim_id in EXPECTED:
        answer = submit(http, claim_id)
        assert answer.status_code == 202, answer.text
        assert answer.headers["location"].endswith(f"/api/v1/claims/{claim_id}")
        first[claim_id] = answer
    again = submit(http, RETRIED)
    assert again.status_code == first[RETRIED].status_code
    assert again.json() == first[RETRIED].json()
    assert again.headers["location"] == first[RETRIED].headers["location"]
    store = Store()
    with store.read() as conn:
        for table in (t.claim_files, t.work_items):
            kept = select(func.count()).where(table.c.claim_id == RETRIED)
            assert conn.execute(kept).scalar_one() == 1, table.name

    def posts() -> list[tuple[str | None, str | None]]:
        entries = store.audit_entries(RETRIED, calls=True)
        return [(e.client, e.call) for e in entries if (e.call or "").startswith("POST ")]

    # Both calls are in the audit trail, naming the client that made them (each written once
    # its answer is sent: polled for).
    wait_for(lambda: len(posts()) >= 2, 30, "both submits of the retried claim audited")
    assert posts() == [("core-system", "POST /api/v1/claims")] * 2


def follow(http: httpx.Client) -> dict[str, dict[str, Any]]:
    """The claims listed once a second (as a claims system polls, within its rate limit) until
    each is decided or escalated (failed fails the test); then each one's view."""
    deadline = time.monotonic() + REVIEW_S
    while True:
        page = http.get("/claims")
        assert page.status_code == 200, page.text
        states = {c["claim_id"]: c["state"] for c in page.json()["claims"]}
        assert "failed" not in states.values(), states
        if all(states.get(c) in ("decided", "escalated") for c in EXPECTED):
            break
        assert time.monotonic() < deadline, f"not all decided or escalated: {states}"
        time.sleep(POLL_S)
    last = {c: http.get(f"/claims/{c}").json() for c in EXPECTED}
    assert {c: body["state"] for c, body in last.items()} == {
        c: state for c, (state, _) in EXPECTED.items()
    }
    for claim_id in ("C-1046", "C-1051"):  # both reviewers agree the storm clause covers it
        decision = last[claim_id]["decision"]
        assert (decision["outcome"], decision["answer"]) == ("ACCEPTED", "covered")
        assert last[claim_id]["links"]["letter"].endswith(f"/claims/{claim_id}/letter")
    # Claimed 1450 less the policy's 250 deductible, step by step.
    assert last["C-1046"]["amount"]["amount"] == "1200"
    assert [s["kind"] for s in last["C-1046"]["amount"]["steps"]] == [
        "claimed",
        "limit",
        "deductible",
    ]
    assert last["C-3001"]["decision"]["reason_codes"][0] == "abstained"
    # C-1051's facts were checked against the PDF it was submitted with.
    [form] = [d for d in Store().decisions() if d.claim_id == "C-1051"]
    read_in = {f.where for f in form.resolution.facts if f.status == "verified"}
    assert "C-1051-loss-notice.pdf" in read_in, form.resolution.facts
    return last


def letters(http: httpx.Client, claim_id: str, claimant: str) -> None:
    """The decided claim's letter as a PDF pypdf reads, and as Markdown."""
    pdf = http.get(f"/claims/{claim_id}/letter", params={"format": "pdf"})
    assert pdf.status_code == 200, pdf.text
    assert pdf.headers["content-type"].startswith("application/pdf")
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages)
    assert claim_id in text and claimant in text
    md = http.get(f"/claims/{claim_id}/letter", params={"format": "md"})
    assert md.status_code == 200, md.text
    assert claim_id in md.text and claimant in md.text


def tried_while_down() -> bool:
    """Every event has its delivery, each tried at least once, not answered (the connection
    refused) and still pending."""
    deliveries = Store().deliveries()
    return len(deliveries) == len(EXPECTED) and all(
        d.status == "pending" and d.attempts >= 1 and d.last_status is None for d in deliveries
    )


def all_delivered() -> bool:
    return Store().delivery_counts().get("delivered", 0) == len(EXPECTED)


def test_a_claims_system_submits_follows_and_is_told_once_across_an_outage_and_a_restart(
    openai_server: StartServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model = start(openai_server, monkeypatch)
    secret = new_secret()
    receiver = Receiver(secret)  # reserved, not listening: the first tries are refused
    config = webhook_config(tmp_path / "config", receiver.url, list(WEBHOOK_EVENTS))
    service = Service(config, secret, tmp_path / "serve.log")
    token = token_from(cli("clients", "add", "core-system", "--scope", "submit,read"))
    bearer = {"Authorization": f"Bearer {token}"}
    try:
        service.start()
        with httpx.Client(base_url=f"{service.url}/api/v1", headers=bearer, timeout=30) as http:
            submit_all(http)
            followed = follow(http)
            letters(http, "C-1046", "Tom Brightwell")
        wait_for(tried_while_down, DELIVER_S, "each delivery tried while the receiver is down")
        assert service.stop() == 0
        # Stopped with every delivery pending: nothing was sent, and nothing is lost.
        assert Store().delivery_counts().get("pending", 0) == len(EXPECTED)
        assert receiver.snapshot().accepted == Counter()

        receiver.unavailable(UNAVAILABLE)
        receiver.listen()
        service.start()
        wait_for(all_delivered, DELIVER_S, "every delivery made after the restart")
        received = receiver.snapshot()
        assert received.rejected == 0
        assert received.by_event() == Counter({(event, c): 1 for c, (_, event) in EXPECTED.items()})
        assert sum(received.unavailable.values()) == UNAVAILABLE
        announced(received.payloads, followed)
        listed_deliveries(set(received.accepted))
        with httpx.Client(base_url=service.url, timeout=30) as ops:
            metrics_agree(ops, model)
        # The API's calls are audit entries too, and the chain holds with them.
        verdict = Store().verify_audit()
        assert verdict.ok, verdict.problem
        # The sender has run several passes since: nothing more arrived.
        assert receiver.snapshot().accepted == received.accepted
    finally:
        service.stop()
        receiver.close()


def announced(payloads: dict[str, dict[str, Any]], followed: dict[str, dict[str, Any]]) -> None:
    """Each payload names its claim, with the audit entry's hash the API shows for it."""
    for msg_id, payload in payloads.items():
        data = payload["data"]
        assert msg_id.startswith("evt_")
        assert data["audit"] == followed[data["claim_id"]]["audit"], payload


def listed_deliveries(accepted: set[str]) -> None:
    """`claims-crew webhooks deliveries --json` lists one delivered row per event received."""
    listed = json.loads(cli("webhooks", "deliveries", "--json"))
    rows = listed["deliveries"]
    assert {row["event_id"] for row in rows} == accepted
    assert len(rows) == len(accepted)
    assert {row["status"] for row in rows} == {"delivered"}
    assert all(row["attempts"] >= 2 for row in rows)  # refused while down, then delivered
    assert listed["counts"].get("delivered") == len(accepted)
    assert not listed["counts"].get("pending") and not listed["counts"].get("failed")


def samples(text: str) -> Samples:
    """Every sample of the exposition, keyed by name and labels."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def metric(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def metrics_agree(ops: httpx.Client, model: OpenAIServer) -> None:
    """/metrics, parsed by prometheus-client, counts what the store holds and what the
    scripted model was asked."""
    assert ops.get("/readyz").status_code == 200
    answer = ops.get("/metrics")
    assert answer.status_code == 200
    found = samples(answer.text)
    store = Store()
    assert metric(found, "claims_crew_claims", state="decided") == 2
    assert metric(found, "claims_crew_claims", state="escalated") == 1
    by_rule = Counter((d.outcome, d.resolution.rule) for d in store.decisions())
    for (outcome, rule), n in by_rule.items():
        assert metric(found, "claims_crew_decisions_total", outcome=outcome, rule=rule) == n
    assert metric(found, "claims_crew_escalations_open") == len(store.open_escalations())
    assert metric(found, "claims_crew_queue_depth") == store.queue_counts().pending == 0
    for status, n in store.delivery_counts().items():
        assert metric(found, "claims_crew_webhook_deliveries", status=status) == n
    asked = Counter(agent_of(exchange.request) for exchange in model.exchanges)
    for agent, n in asked.items():
        assert metric(found, "claims_crew_model_calls_total", agent=agent) == n, agent
