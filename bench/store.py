"""Benchmark: the decision store, the audit chain and the review list page at 10,000 claims.

It measures, in one run:

1. the time to record N decisions, each a whole claim result (attempt, three agent outputs,
   ledger, resolution, decision, escalation, audit entry) in its own `BEGIN IMMEDIATE`
   transaction with synchronous=FULL, as the pipeline writes them;
2. `audit verify` over the N entries;
3. the review list page (`GET /`, signed in, 50 rows a page) and one escalation page, served
   by the real app through Starlette's TestClient: median milliseconds over repeated requests.
   Goal: the list page within 100 ms.

The records are the water claim (the design's example) resolved by the real resolver against
the sample home policy, copied under N claim ids; every one escalates, the worst case for the
queue. The store lives in a temporary folder, so the figures include that disk's fsyncs; the
folder's file system is printed with them. The benchmark only prints: a missed goal shows as
MISS, never as a failure.

Run it from the project root:

    uv run python bench/store.py
    uv run python bench/store.py --claims 2000 --requests 20
    uv run python bench/store.py --small     # 200 claims, 3 requests a page: CI's check
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE_GOAL_MS = 100.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument(
        "--small", action="store_true", help="200 claims, 3 requests a page (CI's run)"
    )
    args = parser.parse_args()
    if args.small:
        args.claims, args.requests = 200, 3
    os.environ.setdefault("CLAIMS_CREW_POLICIES", str(ROOT / "policies"))
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        run(Path(tmp), args.claims, args.requests)


def _filesystem(path: Path) -> str:
    try:
        out = subprocess.run(
            ["df", "--output=fstype", str(path)], capture_output=True, text=True, check=True
        )
        return out.stdout.split()[-1]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def run(tmp: Path, n: int, requests: int) -> None:
    from datetime import UTC, datetime

    from fastapi.testclient import TestClient

    from claims_crew.claim_files import LoadedClaim
    from claims_crew.models import ClaimFile
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.records import ClaimRecord
    from claims_crew.resolver import resolve
    from claims_crew.resolver.case_files import load_case
    from claims_crew.resolver.config import load_config
    from claims_crew.review.web import create_app
    from claims_crew.store import Store

    library = PolicyLibrary(root=ROOT / "policies", cache_dir=tmp / "cache")
    # The design's water example, as shipped for `claims-crew resolve`: it escalates.
    example = ROOT / "examples" / "cases" / "water-damage-start-unknown.json"
    rules = load_config(ROOT / "config")
    case = load_case(example, library, rules)
    resolution = resolve(case, rules)
    base = case.claim_file.model_dump(mode="json")
    answers = json.loads(example.read_text(encoding="utf-8"))
    said = {
        "intake_task": json.dumps(answers["facts"]),
        "policy_task": json.dumps(answers["claims"]["policy"]),
        "fraud_task": json.dumps(answers["claims"]["fraud"]),
    }
    now = datetime.now(UTC)

    def loaded_and_record(i: int) -> tuple[LoadedClaim, ClaimRecord]:
        claim_id = f"B-{i:05}"
        data = {**base, "claim_id": claim_id}
        raw = json.dumps(data).encode()
        loaded = LoadedClaim(tmp / f"{claim_id}.json", ClaimFile.model_validate(data), raw, {})
        record = ClaimRecord(
            claim_id=claim_id,
            claim_file=str(loaded.path),
            claim_sha256=hashlib.sha256(raw).hexdigest(),
            policy_id="HM-HOME-001",
            status="reviewed",
            intake=case.facts,
            policy=case.policy,
            fraud=case.fraud,
            raw=said,
            ledger=list(case.ledger),
            models={"intake": "m", "policy": "m", "fraud": "m"},
            resolution=resolution,
            policy_sha256=case.view.sha256,
            started_at=now,
            finished_at=now,
        )
        return loaded, record

    inputs = [loaded_and_record(i) for i in range(n)]
    store = Store(tmp / "claims.sqlite")
    run_id = store.start_run("bench")
    started = time.perf_counter()
    for loaded, record in inputs:
        store.record(record, run_id, loaded)
    record_s = time.perf_counter() - started

    started = time.perf_counter()
    verdict = store.verify_audit()
    verify_s = time.perf_counter() - started

    token = store.add_reviewer("bench")
    client = TestClient(create_app(store, ["testserver"]), follow_redirects=False)
    csrf = client.get("/login").context["csrf"]  # type: ignore[attr-defined]
    assert client.post("/login", data={"token": token, "csrf": csrf}).status_code == 303

    def median_ms(path: str) -> float:
        times = []
        for _ in range(requests):
            t0 = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - t0) * 1000)
            assert response.status_code == 200, response.text[:200]
        return statistics.median(times)

    list_ms = median_ms("/")
    last_page_ms = median_ms(f"/?page={-(-n // 50)}")
    detail_ms = median_ms("/escalations/B-00042")
    size_mb = sum(p.stat().st_size for p in tmp.glob("claims.sqlite*")) / 1e6

    print(f"store: {store.path.name} on {_filesystem(tmp)}, {size_mb:.1f} MB after {n} claims")
    print(
        f"record {n} decisions (one transaction each, synchronous=FULL): {record_s:.2f} s "
        f"({record_s / n * 1000:.2f} ms per claim, {n / record_s:.0f} per second)"
    )
    print(
        f"audit verify over {verdict.entries} entries: {verify_s * 1000:.0f} ms "
        f"({'ok' if verdict.ok else 'BROKEN'})"
    )
    mark = "ok" if list_ms <= PAGE_GOAL_MS else "MISS"
    print(
        f"review list page, {store.open_count()} open escalations, 50 a page: "
        f"median {list_ms:.1f} ms over {requests} requests "
        f"(goal <= {PAGE_GOAL_MS:.0f} ms: {mark})"
    )
    print(f"review list, last page: median {last_page_ms:.1f} ms")
    print(f"escalation page (side by side): median {detail_ms:.1f} ms")
    if not verdict.ok:
        raise SystemExit("the audit chain does not verify")


if __name__ == "__main__":
    main()
