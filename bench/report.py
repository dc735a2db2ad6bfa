"""Benchmark: `claims-crew report` over 10,000 stored decisions, or 10,000 escalations (goal:
under 2 s).

It builds a decision store of N claims (default 10,000) through the store's own write API
(`Store.record`, then `Store.decide` on about a third of the escalations), from eight kinds of
claim resolved by the real resolver against the sample home policy: agreements, a made-up
clause, the water example with the start date unknown, interpretation disputes settled by the
adjudicator or left open, an unreadable answer, low confidence, and a theft claim. With
`--escalations`, only the kinds a person must decide, so every claim is an escalation: the
review desk's figures (ageing, on-time rates) then run over N escalations. Each escalation runs
on the default clock (config/clocks.yaml) from a reported day spread over the 120 days before
the claim's own. The store is kept in bench/results/report-N/ (report-escalations-N/) and
reused; `--rebuild` makes it again.

Then it times, each the best of `--repeat` runs:

1. `report()` as `claims-crew report` runs it (report/from_facts.py), whole, and two of its
   parts: the grouped read of the report's facts, and the desk's figures (one grouped query
   over the escalations, then `desk_figures`);
2. `--json` and `--html` rendering of that report;
3. `claims-crew report --json` as a user runs it, in a fresh process (Python start-up included),
   taking turns with the same command on an empty store: the difference is the report's own
   work, apart from what starting a process costs on the machine at the time.

Run it from the project root:

    uv run python bench/report.py
    uv run python bench/report.py --claims 2000 --rebuild
    uv run python bench/report.py --escalations   # 10,000 escalations
    uv run python bench/report.py --small     # 300 decisions, then 100 escalations, once each
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SMALL_CLAIMS = 300
SMALL_ESCALATIONS = 100
SMALL_HELP = (
    f"{SMALL_CLAIMS} decisions, then {SMALL_ESCALATIONS} escalations, in temporary folders, "
    "each timing once (CI's run)"
)

# The claim files the intake facts are read from: C-1042 as it would read had the claimant said
# when the leak began, and a break-in. Every fact intake states names where the claim says it,
# so the resolver verifies it (an unverified fact counts as unknown).
STARTED = "The leak began on the morning of 3 November 2025."
BROKEN_INTO = "Someone broke in by forced entry through the back door and took a laptop."
WATER_SOURCES = {
    "loss_type": {"where": "description", "quote": "Water came through the kitchen ceiling"},
    "cause": {"where": "description", "quote": "a leaking joint on the pipe under the bath"},
    "date_of_loss": {"where": "date_of_loss"},
    "damage_start_date": {"where": "description", "quote": STARTED},
    "amount_claimed": {"where": "amount"},
}
WATER = {
    "loss_type": "water_damage",
    "cause": "leaking joint on the pipe under the bath",
    "date_of_loss": "2025-11-03",
    "damage_start_date": "2025-11-03",
    "amount_claimed": 4200,
    "sources": WATER_SOURCES,
}
START_UNKNOWN = {
    **WATER,
    "damage_start_date": None,
    "unknowns": ["damage_start_date"],
    "sources": {k: v for k, v in WATER_SOURCES.items() if k != "damage_start_date"},
}
THEFT = {
    **WATER,
    "loss_type": "theft",
    "cause": "forced entry",
    "damage_start_date": None,
    "sources": {
        "loss_type": {"where": "description", "quote": "took a laptop"},
        "cause": {"where": "description", "quote": "broke in by forced entry"},
        "date_of_loss": {"where": "date_of_loss"},
        "amount_claimed": {"where": "amount"},
    },
}
COVERED = {
    "answer": "covered",
    "confidence": 0.9,
    "evidence": [{"clause_id": "4.2(b)", "quote": "sudden and accidental discharge of water"}],
    "facts_relied_on": ["cause", "damage_start_date"],
}
EXCLUDED = {
    "answer": "not_covered",
    "confidence": 0.7,
    "evidence": [{"clause_id": "7.1", "quote": "continuous or repeated seepage or leakage"}],
    "facts_relied_on": ["cause", "damage_start_date"],
}
THEFT_COVERED = {
    "answer": "covered",
    "confidence": 0.95,
    "evidence": [
        {"clause_id": "4.4(a)", "quote": "theft or attempted theft involving forcible and violent"}
    ],
    "facts_relied_on": ["cause"],
}
UNSURE_THEFT = {**THEFT_COVERED, "confidence": 0.6}
MADE_UP = {**EXCLUDED, "evidence": [{"clause_id": "9.4", "quote": "hail"}]}
RULING = {"choice": "policy", "reason": "sudden, not weeks of seepage", "evidence": ["4.2(b)"]}


class Kind(NamedTuple):
    """One kind of stored claim, and the outcome the resolver must reach on it: a kind that no
    longer reaches its outcome means the rules changed under the bench, so it stops."""

    weight: int
    intake: dict[str, Any]
    policy: Any
    fraud: Any
    ruling: dict[str, Any] | None
    outcome: str


KINDS = [
    Kind(55, WATER, COVERED, COVERED, None, "ACCEPTED"),
    Kind(12, THEFT, THEFT_COVERED, THEFT_COVERED, None, "ACCEPTED"),
    Kind(8, START_UNKNOWN, {**COVERED, "confidence": 0.82}, EXCLUDED, None, "ESCALATED"),
    Kind(6, WATER, COVERED, MADE_UP, None, "PREFERRED"),
    Kind(5, WATER, COVERED, EXCLUDED, RULING, "ADJUDICATED"),
    Kind(4, WATER, COVERED, EXCLUDED, None, "ADJUDICATION_REQUIRED"),
    Kind(5, THEFT, UNSURE_THEFT, UNSURE_THEFT, None, "ESCALATED"),
    Kind(5, WATER, COVERED, "I'd say covered", None, "ESCALATED"),
]


def templates() -> list[Any]:
    """One resolved ClaimRecord per kind, with the claim file it was made from."""
    from claims_crew.models import (
        AdjudicatorAnswer,
        Claim,
        ClaimFile,
        IntakeFacts,
        LedgerEntry,
        ParseFailure,
    )
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.records import ClaimRecord
    from claims_crew.resolver import apply_adjudication, resolve
    from claims_crew.resolver.config import load_config
    from claims_crew.resolver.reread import read_case

    library = PolicyLibrary()
    config = load_config(ROOT / "config")
    claim_path = ROOT / "claims" / "inbox" / "C-1042.json"
    on_file = ClaimFile.model_validate_json(claim_path.read_text(encoding="utf-8"))
    said = {
        "water_damage": f"{on_file.description} {STARTED}",
        "theft": f"{BROKEN_INTO} {on_file.description}",
    }
    start = datetime(2025, 11, 5, 9, tzinfo=UTC)
    made = []
    for weight, intake, policy, fraud, ruling, outcome in KINDS:
        claim = on_file.model_copy(update={"description": said[intake["loss_type"]]})
        sides: dict[str, Any] = {}
        for name, answer in (("policy", policy), ("fraud", fraud)):
            sides[name] = (
                ParseFailure(reason="not a JSON object", raw=answer)
                if isinstance(answer, str)
                else Claim.model_validate(answer)
            )
        ledger = [
            LedgerEntry(
                task_id=f"t-{name}",
                task_name=f"{name}_task",
                agent_role=name,
                tool="policy_lookup",
                args={"policy_id": "HM-HOME-001"},
                returned_clause_ids=[e.clause_id for e in c.evidence],
            )
            for name, c in sides.items()
            if isinstance(c, Claim)
        ]
        facts = IntakeFacts.model_validate(intake)
        case = read_case(library, config, claim, facts, (sides["policy"], sides["fraud"]), ledger)
        resolution = resolve(case, config)
        check = None
        if ruling is not None:
            resolution, check = apply_adjudication(
                case, config, resolution, AdjudicatorAnswer.model_validate(ruling)
            )
        assert resolution.outcome == outcome, (outcome, resolution.reason)
        record = ClaimRecord(
            claim_id=claim.claim_id,
            claim_file=str(claim_path),
            claim_sha256="",
            policy_id="HM-HOME-001",
            status="reviewed",
            intake=facts,
            policy=sides["policy"],
            fraud=sides["fraud"],
            raw={"intake_task": json.dumps(intake), "policy_task": "{}", "fraud_task": "{}"},
            ledger=ledger,
            models={"intake": "bench", "policy": "bench", "fraud": "bench"},
            resolution=resolution,
            adjudication=check,
            model_calls={"intake_task": 1, "policy_task": 2, "fraud_task": 1},
            tokens={"intake_task": 900, "policy_task": 2400, "fraud_task": 1300},
            policy_sha256=case.view.sha256,
            started_at=start,
            finished_at=start + timedelta(seconds=14),
        )
        made.append((weight, record, claim))
    return made


def build(path: Path, count: int, escalations: bool = False) -> float:
    """Write `count` decisions (with `escalations`, all escalated) into a new store at `path`;
    seconds taken."""
    from claims_crew.claim_files import LoadedClaim
    from claims_crew.desk import Assigner, DeskRules, clocks
    from claims_crew.store import Basis, Store

    for stale in path.parent.glob(path.name + "*"):
        stale.unlink()
    began = time.perf_counter()
    store = Store(path)
    store.add_reviewer("bench")
    kinds = templates()
    if escalations:
        kinds = [
            k for k in kinds if k[1].resolution.outcome in ("ESCALATED", "ADJUDICATION_REQUIRED")
        ]
    cycle = [(record, claim) for weight, record, claim in kinds for _ in range(weight)]
    table = clocks.load_clocks(ROOT / "config")
    decisions = ("covered", "not_covered", "needs_more_evidence")
    for i in range(count):
        record, claim = cycle[i % len(cycle)]
        claim_id = f"B-{i:05d}"
        reported = claim.date_reported - timedelta(days=i % 120)
        data = claim.model_copy(update={"claim_id": claim_id, "date_reported": reported})
        raw = data.model_dump_json().encode("utf-8")
        sha = hashlib.sha256(raw).hexdigest()
        loaded = LoadedClaim(Path(f"{claim_id}.json"), data, raw, {})
        basis = Basis(deadlines=clocks.deadlines(table, reported, None), assign=Assigner())
        done = store.record(
            record.model_copy(update={"claim_id": claim_id, "claim_sha256": sha}),
            None,
            loaded,
            basis,
        )
        if done.escalation_id is not None and i % 3 == 0:
            store.decide(
                claim_id, decisions[i % 9 // 3], "bench review", "bench", rules=DeskRules()
            )
        if i and i % 1000 == 0:
            print(f"  {i} decisions written", file=sys.stderr)
    return time.perf_counter() - began


def best_of(repeat: int, job: Any) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        began = time.perf_counter()
        value = job()
        best = min(best, time.perf_counter() - began)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument(
        "--escalations", action="store_true", help="every claim escalated: N escalations"
    )
    parser.add_argument("--small", action="store_true", help=SMALL_HELP)
    args = parser.parse_args()
    if args.small:
        for claims, escalations in ((SMALL_CLAIMS, False), (SMALL_ESCALATIONS, True)):
            with tempfile.TemporaryDirectory() as tmp:
                run(claims, 1, True, Path(tmp), escalations)
    else:
        name = f"report-escalations-{args.claims}" if args.escalations else f"report-{args.claims}"
        run(args.claims, args.repeat, args.rebuild, RESULTS / name, args.escalations)


def run(claims: int, repeat: int, rebuild: bool, home: Path, escalations: bool = False) -> None:
    """Build (or reuse) the store of `claims` decisions in `home` (with `escalations`, every
    one escalated), then time the report on it."""
    os.environ["CLAIMS_CREW_HOME"] = str(home)  # the CLI run below reads the same store
    from claims_crew.desk import clocks
    from claims_crew.report.desk import desk_figures
    from claims_crew.report.from_facts import LISTED
    from claims_crew.report.from_facts import report as facts_report
    from claims_crew.report.html import render
    from claims_crew.store import Store

    home.mkdir(parents=True, exist_ok=True)
    path = home / "claims.sqlite"
    if rebuild or not path.exists():
        print(f"building a store of {claims:,} decisions in {path} ...", file=sys.stderr)
        print(f"built in {build(path, claims, escalations):.1f} s")
    store = Store(path)

    facts_s, _ = best_of(repeat, lambda: store.report_facts(None, LISTED))
    desk_s, desk = best_of(repeat, lambda: desk_figures(store.clock_groups(), clocks.today()))
    total_s, report = best_of(repeat, lambda: facts_report(store))
    json_s, _ = best_of(repeat, lambda: report.model_dump_json(indent=2))
    html_s, page = best_of(repeat, lambda: render(report))
    exe = Path(sys.executable).with_name("claims-crew")

    def command(home_dir: Path) -> Any:
        env = {**os.environ, "CLAIMS_CREW_HOME": str(home_dir)}
        done = subprocess.run([str(exe), "report", "--json"], env=env, capture_output=True)
        return done.check_returncode()

    # The same command on an empty store, already migrated, taking turns with it: what
    # starting the process costs on this machine now, apart from the report's own work.
    cli_s = empty_s = float("inf")
    with tempfile.TemporaryDirectory() as empty:
        Store(Path(empty) / "claims.sqlite").close()
        for _ in range(repeat):
            cli_s = min(cli_s, best_of(1, lambda: command(home))[0])
            empty_s = min(empty_s, best_of(1, lambda: command(Path(empty)))[0])
    overall = report.overall
    assert overall.claims == claims, "stale store: run with --rebuild"
    print(f"decisions:                     {overall.claims:,}")
    print(
        f"conflict / escalated:          {overall.conflict.count:,} / {overall.escalated.count:,}"
    )
    print(
        f"escalations (open / overdue):  {desk.open + desk.decided_on_time.denominator:,} "
        f"({desk.open:,} / {desk.overdue:,})"
    )
    print(f"report facts (grouped read):   {facts_s:.3f} s")
    print(f"desk figures (one query):      {desk_s:.3f} s")
    print(f"report() total:                {total_s:.3f} s  (goal < 2 s)")
    print(f"--json dump:                   {json_s:.3f} s")
    print(f"--html render:                 {html_s:.3f} s  ({len(page) / 1e6:.1f} MB)")
    print(f"`claims-crew report --json`:   {cli_s:.3f} s  (fresh process, start-up included)")
    print(
        f"  the same on an empty store:  {empty_s:.3f} s  (start-up alone; the report's own "
        f"work: {cli_s - empty_s:.3f} s, {cli_s / empty_s:.1f}x the empty store's time)"
    )


if __name__ == "__main__":
    main()
