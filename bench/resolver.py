"""Benchmark: what the resolver's rules cost per case, beside one scripted crew run.

It generates N cases (default 10,000) against the sample home policy, mixing every path
through the rules: agreement, a fabricated clause, a misquote, a wrong clause kind, unknown and
disputed facts, interpretation disputes, gates and parse errors. Clause ids and quotes are
drawn from the policy's real clauses, so most citations verify. The clauses are re-read from the
PDF's index once per case before timing starts (that is reread.policy_view, the resolver's only
I/O, timed separately); then each case is resolved alone and timed, and it prints:

1. the median and p99 microseconds per resolve() call (goal: median under 200 µs);
2. the median microseconds of the re-read per case;
3. the median wall time of one crew run on one claim with a scripted model (no latency), and
   the ratio crew run / resolver median, both taken in this run.

Run it from the project root:

    uv run python bench/resolver.py
    uv run python bench/resolver.py --cases 2000
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def generate(count: int, clauses: dict[str, tuple[str, str]], seed: int = 7) -> list[Any]:
    """Case inputs: (claim_file, facts, policy claim, fraud claim, ledger), as pydantic models."""
    from claims_crew.models import Claim, ClaimFile, Evidence, IntakeFacts, LedgerEntry

    rng = random.Random(seed)
    grants = [cid for cid, (kind, _) in clauses.items() if kind == "grant"]
    exclusions = [cid for cid, (kind, _) in clauses.items() if kind == "exclusion"]
    cases = []
    for i in range(count):
        amount = rng.choice([800, 4200, 12_000, 40_000])
        claim_file = ClaimFile(
            claim_id=f"B-{i:05d}",
            policy_id="HM-HOME-001",
            claimant="Bench",
            date_reported="2025-11-04",
            date_of_loss=rng.choice(["2025-11-03", "2025-11-03", "2024-06-01"]),
            description="generated",
            amount=amount,
            currency="GBP",
            risk_class=rng.choice([None, "low", "high"]),
        )
        facts = IntakeFacts(
            loss_type="water_damage",
            cause="leak",
            date_of_loss=rng.choice(["2025-11-03", "2025-11-03", "2025-10-01"]),
            damage_start_date=rng.choice([None, "2025-11-03"]),
            amount_claimed=amount,
        )

        def claim(answer: str) -> Claim:
            pool = grants if answer == "covered" else exclusions
            evidence = []
            for _ in range(rng.choice([0, 1, 1, 2])):
                cid = rng.choice([*pool, "9.9"])  # now and then a clause that does not exist
                quote = clauses.get(cid, ("", "no such words"))[1]
                if rng.random() < 0.15:
                    quote = "words that are not in the clause"
                evidence.append(Evidence(clause_id=cid, quote=quote))
            return Claim(
                answer=answer,
                confidence=round(rng.uniform(0.4, 1.0), 2),
                evidence=evidence,
                facts_relied_on=rng.choice([[], ["cause"], ["damage_start_date", "cause"]]),
                red_flags=rng.choice([[], [], ["inconsistent dates", "altered invoice"]]),
            )

        policy = claim(rng.choice(["covered", "covered", "not_covered"]))
        fraud = claim(rng.choice(["covered", "not_covered", "not_covered"]))
        ledger = [
            LedgerEntry(
                task_id="t",
                task_name="policy_task",
                agent_role="policy",
                tool="policy_lookup",
                args={},
                returned_clause_ids=[e.clause_id for e in policy.evidence],
            )
        ]
        cases.append((claim_file, facts, policy, fraud, ledger))
    return cases


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def crew_run_seconds(library: Any, workdir: Path, runs: int) -> float:
    """Median wall time of one scripted crew run on the water claim (no model latency)."""
    from claims_crew.claim_files import load_claim
    from claims_crew.llms.scripted import ScriptedLLM, final, lookup
    from claims_crew.run.review import review_claim
    from claims_crew.run.settings import Settings
    from claims_crew.store import Store

    facts = {"loss_type": "water_damage", "cause": "leak", "date_of_loss": "2025-11-03",
             "damage_start_date": None, "amount_claimed": 4200}  # fmt: skip
    quote = {"clause_id": "4.2(b)", "quote": "sudden and accidental discharge"}
    answer = {"answer": "covered", "confidence": 0.8, "facts_relied_on": ["cause"],
              "evidence": [quote]}  # fmt: skip
    times = []
    for _ in range(runs):
        llms = {
            "intake": ScriptedLLM([final(facts)]),
            "policy": ScriptedLLM([lookup("HM-HOME-001", "4.2(b)"), final(answer)]),
            "fraud": ScriptedLLM([lookup("HM-HOME-001", "4.2(b)"), final(answer)]),
        }
        settings = Settings(
            library=library,
            llm_for=lambda name, llms=llms: llms.setdefault(name, ScriptedLLM()),
            store=Store(workdir / "claims.sqlite"),
            config_dir=ROOT / "config",
        )
        started = time.perf_counter()
        record = review_claim(load_claim(ROOT / "claims" / "inbox" / "C-1042.json"), settings)
        times.append(time.perf_counter() - started)
        assert record.status == "reviewed", record.error
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--crew-runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(
            CLAIMS_CREW_HOME=tmp,
            CREWAI_STORAGE_DIR=str(Path(tmp) / "crewai"),
            CREWAI_DISABLE_TELEMETRY="true",
            OTEL_SDK_DISABLED="true",
        )
        bench(args.cases, args.crew_runs, Path(tmp))


def bench(count: int, crew_runs: int, workdir: Path) -> None:
    import logging

    from rich.console import Console
    from rich.table import Table

    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.resolver import Case, cited_clauses, resolve
    from claims_crew.resolver.config import load_config
    from claims_crew.resolver.reread import policy_view

    logging.getLogger("crewai").setLevel(logging.ERROR)
    console = Console()
    rules = load_config(ROOT / "config")
    library = PolicyLibrary(ROOT / "policies", workdir / "cache")
    doc = library.open("HM-HOME-001")
    clauses = {c.id: (c.kind, " ".join(c.text.split()[2:8])) for c in doc.clauses if c.text.split()}
    inputs = generate(count, clauses)
    reread_us, cases = [], []
    for claim_file, facts, policy, fraud, ledger in inputs:
        started = time.perf_counter()
        view = policy_view(library, "HM-HOME-001", cited_clauses(policy, fraud))
        reread_us.append((time.perf_counter() - started) * 1e6)
        cases.append(Case(claim_file, facts, policy, fraud, ledger, view))

    resolve(cases[0], rules)  # warm: the config's digest is computed once
    resolve_us, outcomes = [], Counter()
    for case in cases:
        started = time.perf_counter()
        resolution = resolve(case, rules)
        resolve_us.append((time.perf_counter() - started) * 1e6)
        outcomes[resolution.outcome] += 1

    crew_s = crew_run_seconds(library, workdir, crew_runs)
    median = statistics.median(resolve_us)

    table = Table(title=f"resolver over {count:,} generated cases (sample home policy)")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("goal")
    table.add_row(
        "resolve() median µs/case", f"{median:.1f}", "< 200 " + ("OK" if median < 200 else "MISS")
    )
    table.add_row("resolve() p99 µs/case", f"{percentile(resolve_us, 0.99):.1f}", "")
    table.add_row("clause re-read median µs/case", f"{statistics.median(reread_us):.1f}", "")
    table.add_row(f"scripted crew run, median of {crew_runs} (ms)", f"{crew_s * 1e3:.1f}", "")
    table.add_row("crew run / resolve() median", f"{crew_s * 1e6 / median:,.0f}×", "")
    console.print(table)
    console.print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))


if __name__ == "__main__":
    main()
