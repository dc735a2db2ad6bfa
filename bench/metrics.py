"""Benchmark: what counting the store costs at 1,000 claims and at 100,000, side by side: one
/metrics scrape (goal under 50 ms at 100,000), `claims-crew report` (under 1 s), `review list`
of the open escalations (under 100 ms), recording one decision, and `audit verify` (which reads
every entry, so it grows with them by nature).

Each store is seeded in bulk inserts, not by reviewing claims. First ten claims are recorded for
real (`Store.record`, `Store.decide`) into a store of their own: one of each kind bench/report.py
resolves with the real resolver (agreements, a made-up clause, the water example, disputes, an
unreadable answer, low confidence, a theft), and two of the escalations decided by a person.
Every seeded claim is a copy of one of them: every row their recording wrote, in every table,
with its own claim id, ids, and audit entries re-chained, re-hashed and signed with the store's
key; each webhook event gets a delivery (the last ten pending). The kept totals are the
templates' own, as recording kept them, times the copies. Before timing, the bench checks that
the copies are what recording would have written: a recount of the rows (the upgrade's way)
gives the same totals, `audit verify` (chain, signatures, and each row against its entry) passes,
and the scrape and the report count every claim. It only prints: a missed goal shows as MISS.

Run it from the project root:

    uv run python bench/metrics.py                    # 1,000 and 100,000 claims
    uv run python bench/metrics.py --sizes 100 10000  # any sizes, multiples of ten, smallest first
    uv run python bench/metrics.py --small            # 100 and 2,000: CI's run
    CLAIMS_CREW_DATABASE_URL=postgresql+psycopg://... uv run python bench/metrics.py
        # on PostgreSQL: each size in a fresh database on that server (its user may create them)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOAL_MS = 50.0
CHUNK = 5_000
PRICES = {"currency": "EUR", "models": {"openai/gpt-4o-mini": {"input": 0.15, "output": 0.6}}}
MODEL = "openai/gpt-4o-mini"
AGENTS = ("intake", "policy", "fraud", "adjudicator")
# What waits now, whatever the store's history: the last deliveries still pending, as many at
# any size.
PENDING_DELIVERIES = 10
TEMPLATES = 10  # claims recorded for real, each seeded claim a copy of one


def _bench_report() -> Any:
    """bench/report.py, whose claim kinds are resolved by the real resolver (its `templates`)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "bench" / "report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def template_claim(k: int) -> str:
    """Template claim `k`'s id: fixed width and fenced, so no id is part of another."""
    return f"T{k:02}-TEMPLATE"


class Templates:
    """The claims each seeded claim is a copy of, recorded through the store's own write API.

    One claim of each of bench/report.py's kinds (agreements, a made-up clause, the water
    example, disputes, an unreadable answer, low confidence, a theft), each recorded with
    `Store.record` on the default clocks, and two of the escalated ones also decided by a person
    (`Store.decide`): TEMPLATES claims in all. `record_into` records one more into another
    store, as a claim's run does, for the figure "recording one decision"."""

    def __init__(self, store: Any) -> None:
        from claims_crew.desk import Assigner, DeskRules, clocks
        from claims_crew.store import Basis

        self.store = store
        self.kinds = [(record, claim) for _, record, claim in _bench_report().templates()]
        table = clocks.load_clocks(ROOT / "config")
        self.basis = lambda reported: Basis(
            deadlines=clocks.deadlines(table, reported, None), assign=Assigner()
        )
        store.add_reviewer("bench")
        escalated = [
            i
            for i, (record, _) in enumerate(self.kinds)
            if record.resolution.outcome in ("ESCALATED", "ADJUDICATION_REQUIRED")
        ]
        plan = [*range(len(self.kinds)), *escalated[:2]]
        assert len(plan) == TEMPLATES, plan
        for k, kind in enumerate(plan):
            done = self._record(template_claim(k), kind)
            if k >= len(self.kinds):
                assert done.escalation_id is not None
                store.decide(template_claim(k), "covered", "bench", "bench", rules=DeskRules())

    def _record(self, claim_id: str, kind: int) -> Any:
        import hashlib

        from claims_crew.claim_files import LoadedClaim

        record, claim = self.kinds[kind]
        data = claim.model_copy(update={"claim_id": claim_id})
        raw = data.model_dump_json().encode("utf-8")
        sha = hashlib.sha256(raw).hexdigest()
        loaded = LoadedClaim(Path(f"{claim_id}.json"), data, raw, {})
        record = record.model_copy(update={"claim_id": claim_id, "claim_sha256": sha})
        return self.store.record(record, None, loaded, self.basis(data.date_reported))

    def record_into(self, store: Any, claim_id: str) -> float:
        """Seconds `store` takes to record one new claim (an escalation) the way a run does."""
        self.store, kept = store, self.store
        try:
            began = time.perf_counter()
            self._record(claim_id, 2)
            return time.perf_counter() - began
        finally:
            self.store = kept


# Tables a claim's recording never writes, or that are not the claim's: not copied.
NOT_COPIED = {"audit_head", "metric_totals", "report_shapes", "reviewers", "runs"}
# Rows that name no claim are the claim's of the row they point at.
OWNER = {"attempt_id": "attempts", "escalation_id": "escalations"}


def template_rows(store: Any) -> dict[str, dict[int, list[dict[str, Any]]]]:
    """Every row the templates' recording wrote, by table and then by template: every table it
    wrote, so a table recording starts to write is copied too, or stops the bench."""
    from sqlalchemy import func, select

    from claims_crew.store import service_tables  # noqa: F401  (its tables in the metadata)
    from claims_crew.store.tables import metadata

    by_table: dict[str, dict[int, list[dict[str, Any]]]] = {}
    owners: dict[str, dict[Any, int]] = {}
    with store.read() as conn:
        # A row's owner before the rows pointing at it: the tables naming a claim first.
        for table in sorted(metadata.sorted_tables, key=lambda t: "claim_id" not in t.c):
            if table.name in NOT_COPIED:
                continue
            if not conn.execute(select(func.count()).select_from(table)).scalar_one():
                continue
            rows = [dict(r) for r in conn.execute(select(table)).mappings()]
            grouped: dict[int, list[dict[str, Any]]] = {}
            for row in rows:
                grouped.setdefault(_owner(table.name, row, owners), []).append(row)
            if "id" in table.c:
                owners[table.name] = {row["id"]: k for k, group in grouped.items() for row in group}
            by_table[table.name] = grouped
    return by_table


def _owner(table: str, row: dict[str, Any], owners: dict[str, dict[Any, int]]) -> int:
    if "claim_id" in row:
        return int(row["claim_id"][1:3])
    for column, owner in OWNER.items():
        if column in row:
            return owners[owner][row[column]]
    raise SystemExit(f"recording writes {table}, which names no claim: teach the bench to copy it")


def seed(store: Any, n: int, templates: Templates) -> float:
    """N claims, each a copy of template claim i % TEMPLATES with its own claim id, ids and
    audit entries (re-chained, re-hashed and signed with the store's key), bulk inserted CHUNK
    claims a transaction; each decision's webhook event has a delivery. The kept totals are the
    templates' own, as their recording kept them, times the copies; the seconds it took."""
    from sqlalchemy import insert, select, text

    from claims_crew.store import service_tables as s
    from claims_crew.store.report_tables import report_shapes
    from claims_crew.store.tables import metadata, metric_totals

    rows = template_rows(templates.store)
    store.add_reviewer("bench")  # the reviewer the templates' escalations went to
    key = store.audit_key()
    entries = {k: len(group) for k, group in rows["audit_log"].items()}
    strides = {
        name: 1 + max((r["id"] for g in groups.values() for r in g), default=0)
        for name, groups in rows.items()
        if "id" in metadata.tables[name].c and _integer_id(metadata.tables[name])
    }
    began = time.perf_counter()
    chain, deliveries = ChainState(), 0
    for first in range(0, n, CHUNK):
        batch: dict[str, list[dict[str, Any]]] = {name: [] for name in rows}
        batch["webhook_deliveries"] = []
        for i in range(first, min(first + CHUNK, n)):
            copy_claim(rows, i, n, strides, chain, key, batch)
        deliveries += len(batch["webhook_deliveries"])
        with store.write() as conn:
            for table in metadata.sorted_tables:  # in the foreign keys' order
                if batch.get(table.name):
                    conn.execute(insert(table), batch[table.name])
    with store.write() as conn, templates.store.read() as source:
        copies = {k: len(range(k, n, TEMPLATES)) for k in range(TEMPLATES)}
        assert len(set(copies.values())) == 1, "N must be a multiple of TEMPLATES"
        kept = [dict(r) for r in source.execute(select(metric_totals)).mappings()]
        totals = [_times(r, copies[0]) for r in kept]
        totals.append({"figure": "deliveries", "a": "", "b": "", "n": deliveries, **_NO_TOKENS})
        conn.execute(insert(metric_totals), totals)
        # The report's shapes are the kinds of claim, not the claims: the templates' own, once.
        shapes = [dict(r) for r in source.execute(select(report_shapes)).mappings()]
        conn.execute(insert(report_shapes), shapes)
        conn.execute(insert(_head()), {"id": 1, "seq": chain.seq, "hash": chain.last})
        if store.postgres:
            for table in (*metadata.sorted_tables, s.webhook_deliveries):
                if "id" in table.c and _integer_id(table):
                    conn.execute(  # the copies set their ids: the sequences must follow them
                        text(
                            f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                            f"(SELECT coalesce(max(id), 1) FROM {table.name}))"
                        )
                    )
            conn.execute(text("ANALYZE"))
    assert entries
    return time.perf_counter() - began


_NO_TOKENS = {"prompt_tokens": 0, "completion_tokens": 0, "micros": 0}


def _times(row: dict[str, Any], copies: int) -> dict[str, Any]:
    return {
        **row,
        **{c: row[c] * copies for c in ("n", "prompt_tokens", "completion_tokens", "micros")},
    }


def _integer_id(table: Any) -> bool:
    from sqlalchemy import Integer

    return isinstance(table.c.id.type, Integer) and table.c.id.primary_key


def _head() -> Any:
    from claims_crew.store.tables import audit_head

    return audit_head


class ChainState:
    """Where the copied audit chain stands: the last entry's number and hash."""

    def __init__(self) -> None:
        from claims_crew.store.audit import GENESIS

        self.seq, self.last = 0, GENESIS


def copy_claim(
    rows: dict[str, dict[int, list[dict[str, Any]]]],
    i: int,
    n: int,
    strides: dict[str, int],
    chain: ChainState,
    key: Any,
    batch: dict[str, list[dict[str, Any]]],
) -> None:
    """Claim i's rows, copied from template i % TEMPLATES into `batch`."""
    from claims_crew.store import entry_signatures
    from claims_crew.store.audit import entry_hash
    from claims_crew.store.entry_kinds import canonical
    from claims_crew.store.tables import metadata

    k, j = i % TEMPLATES, i // TEMPLATES
    old_id, claim_id = template_claim(k), f"M-{i:06}"
    seqs: dict[int, int] = {}
    hashes: dict[str, str] = {}
    for entry in rows["audit_log"][k]:  # in the order they were appended
        body = json.loads(entry["body"].replace(old_id, claim_id))
        chain.seq += 1
        seqs[body["seq"]] = chain.seq
        if body.get("overrides") is not None:
            body["overrides"] = seqs[body["overrides"]]
            body["overrides_hash"] = hashes[body["overrides_hash"]]
        body["seq"], body["prev"] = chain.seq, chain.last
        digest = entry_hash(body)
        hashes[entry["hash"]] = digest
        chain.last = digest
        batch["audit_log"].append(
            {
                "seq": chain.seq,
                "claim_id": claim_id,
                "at": entry["at"],
                "body": canonical(body),
                "hash": digest,
                "signature": entry_signatures.sign(key, digest),
            }
        )
    for name, groups in rows.items():
        if name == "audit_log":
            continue
        table = metadata.tables[name]
        for row in groups.get(k, ()):
            new = {
                c: v.replace(old_id, claim_id) if isinstance(v, str) else v for c, v in row.items()
            }
            if name in strides:
                new["id"] = j * strides[name] + row["id"]
            for column in table.c:
                targets = [fk.column.table.name for fk in column.foreign_keys]
                for target in [*targets, OWNER.get(column.name)]:
                    if target in strides and new[column.name] is not None:
                        new[column.name] = j * strides[target] + row[column.name]
                        break
            if new.get("audit_seq") is not None:
                new["audit_seq"] = seqs[row["audit_seq"]]
            if name == "webhook_events":
                new["id"] = f"{row['id']}_{i}"
                del new["seq"]  # the outbox's order: numbered as inserted
                batch["webhook_deliveries"].append(
                    {
                        "event_id": new["id"],
                        "endpoint": "core",
                        "status": "pending" if i >= n - PENDING_DELIVERIES else "delivered",
                        "created_at": row["created_at"],
                    }
                )
            batch[name].append(new)


@contextmanager
def a_store(tmp: Path, n: int) -> Iterator[Any]:
    """A fresh store for size `n`: an SQLite file in `tmp`, or a new database on the server
    CLAIMS_CREW_DATABASE_URL names (dropped afterwards)."""
    from sqlalchemy import create_engine, make_url, text

    from claims_crew.store import Store

    server = os.environ.get("CLAIMS_CREW_DATABASE_URL")
    if server is None:
        store = Store(tmp / f"metrics-{n}.sqlite")
        try:
            yield store
        finally:
            store.close()
        return
    name = f"bench_metrics_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    store = Store(url=make_url(server).set(database=name))
    try:
        yield store
    finally:
        store.close()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{name}"'))
        admin.dispose()


def scrape_ms(store: Any, repeat: int) -> tuple[float, str]:
    """The median milliseconds of `repeat` scrapes (after one to warm up), and the last page."""
    from fastapi.testclient import TestClient

    from claims_crew.review.web import create_app

    client = TestClient(create_app(store, ["testserver"]))
    page = client.get("/metrics")
    assert page.status_code == 200, page.text
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        page = client.get("/metrics")
        times.append((time.perf_counter() - began) * 1000)
        assert page.status_code == 200, page.text
    return statistics.median(times), page.text


def decisions_counted(page: str) -> float:
    """The decisions the page counts (every seeded claim)."""
    from prometheus_client.parser import text_string_to_metric_families

    return sum(
        s.value
        for family in text_string_to_metric_families(page)
        for s in family.samples
        if s.name == "claims_crew_decisions_total"
    )


def median_s(repeat: int, job: Any) -> tuple[float, Any]:
    """The median seconds of `repeat` runs of `job` (after one to warm up), and its last value."""
    value = job()
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        value = job()
        times.append(time.perf_counter() - began)
    return statistics.median(times), value


def kept_totals_hold(store: Any) -> bool:
    """Whether the seeded totals and report facts are what recounting the seeded rows makes
    (metric_totals.recount and report_facts.recount_facts, the upgrades' way), checked in a
    transaction rolled back."""
    from sqlalchemy import select

    from claims_crew.store.metric_totals import recount
    from claims_crew.store.report_facts import recount_facts
    from claims_crew.store.report_tables import report_facts, report_shapes
    from claims_crew.store.tables import metric_totals

    def read(conn: Any) -> set[tuple[Any, ...]]:
        kept = (metric_totals, report_facts, report_shapes)
        return {(t.name, *row) for t in kept for row in conn.execute(select(t))}

    with store.engine.connect() as conn, conn.begin() as transaction:
        seeded = read(conn)
        recount(conn)
        recount_facts(conn)
        made = read(conn)
        transaction.rollback()
    for row in sorted(seeded ^ made):
        print("  differs:", row, "(seeded)" if row in seeded else "(recounted)")
    return seeded == made


def measure(store: Any, n: int, templates: Templates, repeat: int) -> dict[str, float]:
    """Every figure at one size, in seconds; stops when the seeded store is not what real
    recording would have written."""
    from claims_crew.report import report
    from claims_crew.review.views import escalation_list

    if not kept_totals_hold(store):
        raise SystemExit(f"at {n:,} claims the seeded totals differ from a recount of the rows")
    scrape, page = scrape_ms(store, repeat)
    if decisions_counted(page) != n:
        raise SystemExit(f"at {n:,} claims the scrape counts the wrong decisions")
    report_s, made = median_s(max(1, repeat // 7), lambda: report(store))
    if made.overall.claims != n:
        raise SystemExit(f"at {n:,} claims the report counts {made.overall.claims:,} claims")
    listed_s, listed = median_s(repeat, lambda: escalation_list(store, 1))
    if listed["total"] != store.open_count():
        raise SystemExit(f"at {n:,} claims review list counts {listed['total']:,}")
    recorded = [templates.record_into(store, f"R-{n}-{i:03}") for i in range(max(3, repeat // 3))]
    began = time.perf_counter()
    verdict = store.verify_audit()  # once: it reads every entry, and grows with them
    verify_s = time.perf_counter() - began
    if not verdict.ok or verdict.entries < n:
        raise SystemExit(f"at {n:,} claims audit verify fails: {verdict.as_json()}")
    return {
        "scrape": scrape / 1000,
        "report": report_s,
        "review list": listed_s,
        "record one": statistics.median(recorded),
        "audit verify": verify_s,
        "open escalations": listed["total"],
        "entries": verdict.entries,
    }


# Each figure, its goal at the larger size in seconds (None: it grows with N by nature).
GOALS = {
    "scrape": 0.050,
    "report": 1.0,
    "review list": 0.100,
    "record one": None,
    "audit verify": None,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--small", action="store_true", help="100 and 2,000 claims (CI's run)")
    args = parser.parse_args()
    if args.small:
        args.sizes, args.repeat = [100, 2_000], 5
    if any(n % TEMPLATES for n in args.sizes):
        raise SystemExit(f"each size must be a multiple of {TEMPLATES}")
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as tmp:
        config = Path(tmp) / "config"
        config.mkdir()
        (config / "prices.yaml").write_text(json.dumps(PRICES), encoding="utf-8")
        os.environ["CLAIMS_CREW_CONFIG"] = str(config)
        os.environ.setdefault("CLAIMS_CREW_HOME", str(Path(tmp) / "home"))
        from claims_crew.store import Store

        templates = Templates(Store(Path(tmp) / "templates.sqlite"))
        if not kept_totals_hold(templates.store):
            raise SystemExit("the templates' kept totals differ from a recount of their rows")
        figures = []
        for n in sorted(args.sizes):
            with a_store(Path(tmp), n) as store:
                seeded_s = seed(store, n, templates)
                gc.collect()  # the seeding's garbage, collected now rather than in a timing
                measured = measure(store, n, templates, args.repeat)
            engine = "PostgreSQL" if store.postgres else "SQLite"
            print(
                f"{n:>9,} claims ({engine}): seeded in {seeded_s:6.1f} s; "
                f"{measured['open escalations']:,} open escalations, "
                f"{measured['entries']:,} audit entries"
            )
            figures.append((n, measured))
    (small, at_small), (large, at_large) = figures[0], figures[-1]
    print(f"{'figure':<14}{f'{small:,} claims':>16}{f'{large:,} claims':>18}  ratio  goal")
    for name, goal in GOALS.items():
        verdict = "ok" if goal is None or at_large[name] < goal else "MISS"
        verdict = "grows with N by nature" if name == "audit verify" else verdict
        goal_text = "no goal: " if goal is None else f"< {goal * 1000:,.0f} ms: "
        print(
            f"{name:<14}{at_small[name] * 1000:>13.1f} ms{at_large[name] * 1000:>15.1f} ms"
            f"  x{at_large[name] / at_small[name]:<5.1f} {goal_text}{verdict}"
        )


if __name__ == "__main__":
    main()
